/**
 * A phonebook's contacts: a page at a time, a search, add, edit and (de)activate.
 *
 * The API's contact list filters by phonebook only (no number or name filter), so a search
 * reads the phonebook's contacts (up to SEARCH_MAX) and matches them here: numbers by their
 * digits (as the dialer compares numbers), names by any part, ignoring case.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, get, listPath, patch, post, recordPath, type Page } from '../../api/client.ts';
import { ActionsHead, PagedResults, ResultsTable, usePagedQuery } from '../../components/paged-list.tsx';
import { EmptyState, ErrorMessage, Field, Loading, Time } from '../../components/ui.tsx';
import { formatInteger } from '../../format.ts';
import type { Contact, Phonebook } from './types.ts';

const SEARCH_MAX = 20_000;

const digits = (s: string) => s.replace(/\D/g, '');

function matches(c: Contact, term: string): boolean {
  const d = digits(term);
  if (d && digits(c.contact).includes(d)) return true;
  return c.full_name.toLowerCase().includes(term.trim().toLowerCase());
}

/** Every contact of the phonebook, for a search; `tooMany` when it holds more than SEARCH_MAX. */
async function readForSearch(phonebookId: number): Promise<{ contacts: Contact[]; tooMany: boolean }> {
  const first = await get<Page<Contact>>(listPath('contact', { phonebook_id: phonebookId, page_size: 1000 }));
  if (first.count > SEARCH_MAX) return { contacts: [], tooMany: true };
  const contacts = [...first.results];
  let next = first.next;
  while (next) {
    const page: Page<Contact> = await get<Page<Contact>>(next);
    contacts.push(...page.results);
    next = page.next;
  }
  return { contacts, tooMany: false };
}

function ContactForm({ phonebook, contact, onDone }: { phonebook: Phonebook; contact?: Contact; onDone: () => void }) {
  const client = useQueryClient();
  const [number, setNumber] = useState(contact?.contact ?? '');
  const [name, setName] = useState(contact?.full_name ?? '');
  const [vars, setVars] = useState(contact && contact.additional_vars !== '{}' ? contact.additional_vars : '');
  const [active, setActive] = useState(contact ? contact.status === 1 : true);
  const save = useMutation({
    mutationFn: () => {
      const body = { contact: number, full_name: name, additional_vars: vars.trim() || '{}', status: active ? 1 : 0 };
      return contact ? patch(recordPath('contact', contact.id), body) : post(listPath('contact'), { ...body, phonebook: phonebook.url });
    },
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['contact'] });
      if (contact) onDone();
      else {
        setNumber('');
        setName('');
        setVars('');
      }
    },
  });
  const fields = save.error instanceof ApiError ? save.error.fields : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const title = contact ? `Edit ${contact.contact}` : 'Add a contact';
  return (
    <section className="inline-form" aria-label={title}>
      <h2>{title}</h2>
      <form onSubmit={submit}>
        <Field label="Phone number" hint="With its country code (+1 203 555 0101); spaces and dashes are fine." errors={fields.contact}>
          {(p) => <input {...p} name="contact" type="tel" value={number} onChange={(e) => setNumber(e.target.value)} autoFocus={Boolean(contact)} />}
        </Field>
        <Field label="Full name" errors={fields.full_name}>
          {(p) => <input {...p} name="full_name" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Additional variables" hint='A JSON object, e.g. {"city": "Boston"} (optional).' errors={fields.additional_vars}>
          {(p) => <input {...p} name="additional_vars" value={vars} onChange={(e) => setVars(e.target.value)} />}
        </Field>
        <label className="check">
          <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />
          Active (called by campaigns)
        </label>
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            {contact ? 'Save contact' : 'Add contact'}
          </button>
          {contact && (
            <button type="button" onClick={onDone}>
              Cancel
            </button>
          )}
        </div>
      </form>
      {Object.keys(fields).length && !fields.status && !fields.phonebook ? null : <ErrorMessage error={save.error} />}
    </section>
  );
}

function StatusToggle({ contact }: { contact: Contact }) {
  const client = useQueryClient();
  const toggle = useMutation({
    mutationFn: () => patch(recordPath('contact', contact.id), { status: contact.status === 1 ? 0 : 1 }),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['contact'] }),
  });
  return (
    <>
      <button type="button" onClick={() => toggle.mutate()} disabled={toggle.isPending} aria-label={`${contact.status === 1 ? 'Deactivate' : 'Activate'} ${contact.contact}`}>
        {contact.status === 1 ? 'Deactivate' : 'Activate'}
      </button>
      {toggle.error ? <ErrorMessage error={toggle.error} /> : null}
    </>
  );
}

function ContactTable({ contacts, caption, onEdit }: { contacts: Contact[]; caption: string; onEdit: (c: Contact) => void }) {
  return (
    <ResultsTable
      className="stack"
      caption={caption}
      head={
        <>
          <th scope="col">Number</th>
          <th scope="col">Name</th>
          <th scope="col">Status</th>
          <th scope="col">Added</th>
          <ActionsHead />
        </>
      }
    >
      {contacts.map((c) => (
        <tr key={c.id} className={c.status === 1 ? undefined : 'inactive'}>
          <td>{c.contact}</td>
          <td>{c.full_name}</td>
          <td>{c.status === 1 ? 'Active' : 'Inactive (not called)'}</td>
          <td>
            <Time value={c.created_date} />
          </td>
          <td>
            <div className="row-actions">
              <button type="button" onClick={() => onEdit(c)} aria-label={`Edit ${c.contact}`}>
                Edit
              </button>
              <StatusToggle contact={c} />
            </div>
          </td>
        </tr>
      ))}
    </ResultsTable>
  );
}

export function Contacts({ phonebook }: { phonebook: Phonebook }) {
  const [draft, setDraft] = useState('');
  const [term, setTerm] = useState('');
  const [editing, setEditing] = useState<Contact>();
  const list = usePagedQuery<Contact>(
    ['contact', { phonebook_id: phonebook.id }, 'page'],
    (page, page_size) => listPath('contact', { phonebook_id: phonebook.id, page, page_size }),
    { enabled: !term },
  );
  const all = useQuery({
    queryKey: ['contact', { phonebook_id: phonebook.id }, 'all'],
    queryFn: () => readForSearch(phonebook.id),
    enabled: Boolean(term),
  });
  const found = term && all.data ? all.data.contacts.filter((c) => matches(c, term)) : [];
  const search = (e: FormEvent) => {
    e.preventDefault();
    setTerm(draft.trim());
  };

  return (
    <section aria-labelledby="contacts-title">
      <h2 id="contacts-title">Contacts</h2>
      <form className="search-form" role="search" onSubmit={search}>
        <Field label="Search by number or name">
          {(p) => <input {...p} type="search" name="q" value={draft} onChange={(e) => setDraft(e.target.value)} />}
        </Field>
        <div className="actions">
          <button type="submit">Search</button>
          {term && (
            <button
              type="button"
              onClick={() => {
                setDraft('');
                setTerm('');
              }}
            >
              Show all
            </button>
          )}
        </div>
      </form>
      {editing && <ContactForm key={editing.id} phonebook={phonebook} contact={editing} onDone={() => setEditing(undefined)} />}
      {term ? (
        <>
          <ErrorMessage error={all.error} />
          {all.isPending ? (
            <Loading what="Searching…" />
          ) : all.data?.tooMany ? (
            <p role="status">
              This phonebook holds more than {formatInteger(SEARCH_MAX)} contacts: the API has no search filter, so the console cannot search it. Export it
              and search the file instead.
            </p>
          ) : (
            <>
              <p role="status">
                {formatInteger(found.length)} {found.length === 1 ? 'contact matches' : 'contacts match'} “{term}”.
              </p>
              {found.length > 0 && <ContactTable contacts={found} caption={`Contacts matching ${term}`} onEdit={setEditing} />}
            </>
          )}
        </>
      ) : (
        <PagedResults
          list={list}
          empty={
            <EmptyState title="No contact in this phonebook yet">
              <p>Add a number below, or import a CSV file with a “contact” column.</p>
            </EmptyState>
          }
        >
          {(rows) => <ContactTable contacts={rows} caption={`Contacts, page ${list.page}`} onEdit={setEditing} />}
        </PagedResults>
      )}
      <ContactForm phonebook={phonebook} onDone={() => undefined} />
    </section>
  );
}
