/** The phonebooks, a page at a time, each with its number of contacts; a form to add one. */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { get, listPath, post, type Page } from '../../api/client.ts';
import { PagedResults, ResultsTable, useUrlPagedList } from '../../components/paged-list.tsx';
import { fieldErrors, FormSection } from '../../components/record-page.tsx';
import { EmptyState, Field, Time } from '../../components/ui.tsx';
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
  const fields = fieldErrors(create.error);
  return (
    <FormSection id="new-phonebook" title="New phonebook" submitLabel="Create phonebook" pending={create.isPending} error={create.error} onSubmit={() => create.mutate()}>
      <Field label="Name" errors={fields.name}>
        {(p) => <input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Field label="Description" errors={fields.description}>
        {(p) => <input {...p} name="description" value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
    </FormSection>
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
