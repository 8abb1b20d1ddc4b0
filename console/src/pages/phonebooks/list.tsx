/** The phonebooks, a page at a time, each with its number of contacts; a form to add one. */
import { useState, type FormEvent } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { ApiError, get, listPath, post, type Page } from '../../api/client.ts';
import { EmptyState, ErrorMessage, Field, Loading, Pager, Time } from '../../components/ui.tsx';
import { formatInteger } from '../../format.ts';
import type { Phonebook } from './types.ts';
import '../../components/lists.css';

const PAGE_SIZE = 20;

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
  const [search, setSearch] = useSearchParams();
  const page = Number(search.get('page') ?? '1') || 1;
  const list = useQuery({
    queryKey: ['phonebook', 'page', page],
    queryFn: () => get<Page<Phonebook>>(listPath('phonebook', { page, page_size: PAGE_SIZE })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <div className="page-head">
        <h1>Phonebooks</h1>
      </div>
      <ErrorMessage error={list.error} />
      {list.isPending ? (
        <Loading />
      ) : !list.data || list.data.count === 0 ? (
        <EmptyState title="No phonebook yet">
          <p>
            A phonebook holds the numbers a campaign calls or messages. Create one below, then add contacts one by one or import them from a CSV
            file.
          </p>
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Phonebooks, page {page}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Contacts</th>
                  <th scope="col">Description</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.data.results.map((b) => (
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
              </tbody>
            </table>
          </div>
          <Pager page={page} count={list.data.count} pageSize={PAGE_SIZE} onPage={(p) => setSearch({ page: String(p) })} />
        </>
      )}
      <NewPhonebook />
    </>
  );
}
