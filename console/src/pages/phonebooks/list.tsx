/** The phonebooks, a page at a time, each with its number of contacts; a form to add one. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { ApiError, get, listPath, post, type Page } from '../../api/client.ts';
import { PagedResults, ResultsTable, useUrlPagedList } from '../../components/paged-list.tsx';
import { EmptyState, ErrorMessage, Field, Time } from '../../components/ui.tsx';
import { formatInteger } from '../../format.ts';
import type { Phonebook } from './types.ts';
import '../../components/lists.css';

/** How many contacts a phonebook holds: the API's phonebook record has no count, the contact list's `count` has. */
export function useContactCount(phonebookId: number) {
  return useQuery({
    queryKey: ['contact', 'count', phonebookId],
    queryFn: async () => (await get<Page<unknown>>(listPath('contact', { phonebook_id: phonebookId, page_size: 1 }))).count,
  });
}

function ContactCount({ id }: { id: number }) {
  const count = useContactCount(id);
  return <>{count.data === undefined ? '…' : formatInteger(count.data)}</>;
}

function NewPhonebook() {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useMutation({
    mutationFn: () => post<Phonebook>(listPath('phonebook'), { name, description }),
    onSuccess: (book) => {
      void client.invalidateQueries({ queryKey: ['phonebook'] });
      navigate(`/phonebooks/${book.id}`);
    },
  });
  const fields = create.error instanceof ApiError ? create.error.fields : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <section className="inline-form" aria-labelledby="new-phonebook">
      <h2 id="new-phonebook">New phonebook</h2>
      <form onSubmit={submit}>
        <Field label="Name" errors={fields.name}>
          {(p) => <input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Description" errors={fields.description}>
          {(p) => <input {...p} name="description" value={description} onChange={(e) => setDescription(e.target.value)} />}
        </Field>
        <div className="actions">
          <button type="submit" className="primary" disabled={create.isPending}>
            Create phonebook
          </button>
        </div>
      </form>
      {create.error instanceof ApiError && Object.keys(fields).length ? null : <ErrorMessage error={create.error} />}
    </section>
  );
}

export function PhonebookList() {
  const list = useUrlPagedList<Phonebook>('phonebook');
  return (
    <>
      <div className="page-head">
        <h1>Phonebooks</h1>
      </div>
      <PagedResults
        list={list}
        empty={
          <EmptyState title="No phonebook yet">
            <p>
              A phonebook holds the numbers a campaign calls or messages. Create one below, then add contacts one by one or import them from a CSV
              file.
            </p>
          </EmptyState>
        }
      >
        {(rows) => (
          <ResultsTable
            caption={`Phonebooks, page ${list.page}`}
            head={
              <>
                <th scope="col">Name</th>
                <th scope="col">Contacts</th>
                <th scope="col">Description</th>
                <th scope="col">Created</th>
              </>
            }
          >
            {rows.map((b) => (
              <tr key={b.id}>
                <td>
                  <Link to={`/phonebooks/${b.id}`}>{b.name}</Link>
                </td>
                <td className="num">
                  <ContactCount id={b.id} />
                </td>
                <td className="wrap">{b.description}</td>
                <td>
                  <Time value={b.created_date} />
                </td>
              </tr>
            ))}
          </ResultsTable>
        )}
      </PagedResults>
      <NewPhonebook />
    </>
  );
}
