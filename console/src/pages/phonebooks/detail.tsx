/** One phonebook: rename, delete, its contacts, CSV import and export. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError, del, get, patch, recordPath } from '../../api/client.ts';
import { CsvImport } from '../../components/csv-import.tsx';
import { ConfirmDialog, ErrorMessage, Field, Loading } from '../../components/ui.tsx';
import { formatInteger } from '../../format.ts';
import { Contacts } from './contacts.tsx';
import { useContactCount } from './list.tsx';
import type { Phonebook } from './types.ts';

function RenameForm({ book, onDone }: { book: Phonebook; onDone: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState(book.name);
  const [description, setDescription] = useState(book.description);
  const save = useMutation({
    mutationFn: () => patch(recordPath('phonebook', book.id), { name, description }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['phonebook'] });
      onDone();
    },
  });
  const fields = save.error instanceof ApiError ? save.error.fields : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <section className="inline-form" aria-labelledby="rename-title">
      <h2 id="rename-title">Rename</h2>
      <form onSubmit={submit}>
        <Field label="Name" errors={fields.name}>
          {(p) => <input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
        </Field>
        <Field label="Description" errors={fields.description}>
          {(p) => <input {...p} name="description" value={description} onChange={(e) => setDescription(e.target.value)} />}
        </Field>
        <div className="actions">
          <button type="submit" className="primary" disabled={save.isPending}>
            Save
          </button>
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        </div>
      </form>
      {Object.keys(fields).length ? null : <ErrorMessage error={save.error} />}
    </section>
  );
}

export function PhonebookPage() {
  const id = Number(useParams().id);
  const client = useQueryClient();
  const navigate = useNavigate();
  const [renaming, setRenaming] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const book = useQuery({ queryKey: ['phonebook', id], queryFn: () => get<Phonebook>(recordPath('phonebook', id)) });
  const count = useContactCount(id);
  const remove = useMutation({
    mutationFn: () => del(recordPath('phonebook', id)),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['phonebook'] });
      void client.invalidateQueries({ queryKey: ['contact'] });
      navigate('/phonebooks');
    },
    onSettled: () => setConfirming(false),
  });

  if (book.isPending) return <Loading />;
  if (!book.data) {
    return (
      <>
        <p className="crumbs">
          <Link to="/phonebooks">Phonebooks</Link>
        </p>
        <ErrorMessage error={book.error instanceof ApiError && book.error.status === 404 ? new Error('There is no such phonebook, or it is not yours.') : book.error} />
      </>
    );
  }
  const b = book.data;
  return (
    <>
      <p className="crumbs">
        <Link to="/phonebooks">Phonebooks</Link> /
      </p>
      <div className="page-head">
        <h1>{b.name}</h1>
        <button type="button" onClick={() => setRenaming(true)} disabled={renaming}>
          Rename
        </button>
        <a className="button" href={`${recordPath('phonebook', id)}export/`} download>
          Export CSV
        </a>
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          Delete
        </button>
      </div>
      {b.description && <p className="muted">{b.description}</p>}
      <p>{count.data === undefined ? '…' : `${formatInteger(count.data)} ${count.data === 1 ? 'contact' : 'contacts'}`}</p>
      <ErrorMessage error={remove.error} />
      {renaming && <RenameForm book={b} onDone={() => setRenaming(false)} />}
      <Contacts phonebook={b} />
      <CsvImport
        path={`${recordPath('phonebook', id)}import/`}
        what="contacts"
        columns='A header row with a "contact" column (the number); "full_name", "status" and "additional_vars" are read too, and any other column becomes an additional variable.'
        invalidate={['contact', 'phonebook']}
      />
      <ConfirmDialog
        open={confirming}
        title={`Delete the phonebook “${b.name}”?`}
        confirmLabel="Delete phonebook"
        onConfirm={() => remove.mutate()}
        onCancel={() => setConfirming(false)}
      >
        <p>Its {count.data === undefined ? '' : formatInteger(count.data)} contacts are deleted with it, and campaigns that dial it no longer do.</p>
      </ConfirmDialog>
    </>
  );
}
