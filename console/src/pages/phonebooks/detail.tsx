/** One phonebook: rename, delete, its contacts, CSV import and export. */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { get, patch, recordPath } from '../../api/client.ts';
import { CsvImport } from '../../components/csv-import.tsx';
import { fieldErrors, FormSection, RecordHead, RecordMissing, RenameExportDelete, useDeleteRecord } from '../../components/record-page.tsx';
import { ConfirmDialog, ErrorMessage, Field, Loading } from '../../components/ui.tsx';
import { formatInteger } from '../../format.ts';
import { Contacts } from './contacts.tsx';
import { useContactCount } from './list.tsx';
import type { Phonebook } from './types.ts';

const BACK = { to: '/phonebooks', label: 'Phonebooks' };

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
  const fields = fieldErrors(save.error);
  return (
    <FormSection id="rename-title" title="Rename" submitLabel="Save" pending={save.isPending} error={save.error} onSubmit={() => save.mutate()} onCancel={onDone}>
      <Field label="Name" errors={fields.name}>
        {(p) => <input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
      </Field>
      <Field label="Description" errors={fields.description}>
        {(p) => <input {...p} name="description" value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
    </FormSection>
  );
}

export function PhonebookPage() {
  const id = Number(useParams().id);
  const [renaming, setRenaming] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const book = useQuery({ queryKey: ['phonebook', id], queryFn: () => get<Phonebook>(recordPath('phonebook', id)) });
  const count = useContactCount(id);
  const remove = useDeleteRecord('phonebook', id, ['phonebook', 'contact'], '/phonebooks', () => setConfirming(false));

  if (book.isPending) return <Loading />;
  if (!book.data) return <RecordMissing back={BACK} error={book.error} notFound="There is no such phonebook, or it is not yours." />;
  const b = book.data;
  return (
    <>
      <RecordHead back={BACK} title={b.name}>
        <RenameExportDelete renaming={renaming} onRename={() => setRenaming(true)} exportHref={`${recordPath('phonebook', id)}export/`} onDelete={() => setConfirming(true)} />
      </RecordHead>
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
