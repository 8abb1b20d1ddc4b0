/** One DNC list: rename, global or not, delete; its numbers (add, remove); CSV import and export. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { ApiError, del, get, listPath, patch, post, recordPath } from '../../api/client.ts';
import { CsvImport } from '../../components/csv-import.tsx';
import { ActionsHead, PagedResults, ResultsTable, usePagedQuery } from '../../components/paged-list.tsx';
import { fieldErrors, FormSection, RecordHead, RecordMissing, RenameExportDelete, useDeleteRecord } from '../../components/record-page.tsx';
import { ConfirmDialog, EmptyState, ErrorMessage, Field, Loading, Time } from '../../components/ui.tsx';
import { formatInteger } from '../../format.ts';
import { useNumberCount, type DncList, type DncNumber } from './types.ts';

const BACK = { to: '/dnc-lists', label: 'DNC lists' };

function EditList({ list, onDone }: { list: DncList; onDone: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState(list.name);
  const [global, setGlobal] = useState(list.is_global);
  const save = useMutation({
    mutationFn: () => patch(recordPath('dnc-list', list.id), { name, is_global: global }),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['dnc-list'] });
      onDone();
    },
  });
  const fields = fieldErrors(save.error);
  return (
    <FormSection id="edit-dnc" title="Rename" submitLabel="Save" pending={save.isPending} error={save.error} onSubmit={() => save.mutate()} onCancel={onDone}>
      <Field label="Name" errors={fields.name}>
        {(p) => <input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
      </Field>
      <label className="check">
        <input type="checkbox" checked={global} onChange={(e) => setGlobal(e.target.checked)} />
        Global: applies to every campaign of its owner
      </label>
    </FormSection>
  );
}

function AddNumber({ list }: { list: DncList }) {
  const client = useQueryClient();
  const [number, setNumber] = useState('');
  const add = useMutation({
    mutationFn: () => post(listPath('dnc-contact'), { dnc: list.url, phone_number: number }),
    onSuccess: () => {
      setNumber('');
      void client.invalidateQueries({ queryKey: ['dnc-contact'] });
    },
  });
  const fields = add.error instanceof ApiError ? add.error.fields : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <section className="inline-form" aria-labelledby="add-number">
      <h2 id="add-number">Add a number</h2>
      <form onSubmit={submit}>
        <Field label="Phone number" hint="Matched by its international (E.164) form: a number without + is read in the account's country, else DEFAULT_COUNTRY." errors={fields.phone_number}>
          {(p) => <input {...p} type="tel" name="phone_number" value={number} onChange={(e) => setNumber(e.target.value)} />}
        </Field>
        <div className="actions">
          <button type="submit" className="primary" disabled={add.isPending}>
            Add number
          </button>
        </div>
      </form>
      {fields.phone_number ? null : <ErrorMessage error={add.error} />}
    </section>
  );
}

function RemoveNumber({ number }: { number: DncNumber }) {
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => del(recordPath('dnc-contact', number.id)),
    onSuccess: () => void client.invalidateQueries({ queryKey: ['dnc-contact'] }),
  });
  return (
    <>
      <button type="button" onClick={() => remove.mutate()} disabled={remove.isPending} aria-label={`Remove ${number.phone_number}`}>
        Remove
      </button>
      <ErrorMessage error={remove.error} />
    </>
  );
}

function Numbers({ list }: { list: DncList }) {
  const numbers = usePagedQuery<DncNumber>(['dnc-contact', { dnc_id: list.id }, 'page'], (page, page_size) =>
    listPath('dnc-contact', { dnc_id: list.id, page, page_size }),
  );
  return (
    <section aria-labelledby="numbers-title">
      <h2 id="numbers-title">Numbers</h2>
      <PagedResults
        list={numbers}
        empty={
          <EmptyState title="No number on this list yet">
            <p>Add the numbers that must not be called below, or import a CSV file of them.</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <ResultsTable
            className="stack"
            caption={`Numbers, page ${numbers.page}`}
            head={
              <>
                <th scope="col">Number</th>
                <th scope="col">Added</th>
                <ActionsHead />
              </>
            }
          >
            {rows.map((n) => (
              <tr key={n.id}>
                <td>{n.phone_number}</td>
                <td>
                  <Time value={n.created_date} />
                </td>
                <td>
                  <div className="row-actions">
                    <RemoveNumber number={n} />
                  </div>
                </td>
              </tr>
            ))}
          </ResultsTable>
        )}
      </PagedResults>
    </section>
  );
}

export function DncListPage() {
  const id = Number(useParams().id);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const list = useQuery({ queryKey: ['dnc-list', id], queryFn: () => get<DncList>(recordPath('dnc-list', id)) });
  const count = useNumberCount(id);
  const remove = useDeleteRecord('dnc-list', id, ['dnc-list', 'dnc-contact'], '/dnc-lists', () => setConfirming(false));
  if (list.isPending) return <Loading />;
  if (!list.data) return <RecordMissing back={BACK} error={list.error} notFound="There is no such DNC list, or it is not yours." />;
  const l = list.data;
  return (
    <>
      <RecordHead back={BACK} title={l.name}>
        <RenameExportDelete renaming={editing} onRename={() => setEditing(true)} exportHref={`${recordPath('dnc-list', id)}export/`} onDelete={() => setConfirming(true)} />
      </RecordHead>
      <p>
        {count.data === undefined ? '…' : `${formatInteger(count.data)} ${count.data === 1 ? 'number' : 'numbers'}`} ·{' '}
        {l.is_global ? 'Global: applies to every campaign of its owner' : 'Applies to the campaigns that choose it'}
      </p>
      <ErrorMessage error={remove.error} />
      {editing && <EditList list={l} onDone={() => setEditing(false)} />}
      <Numbers list={l} />
      <AddNumber list={l} />
      <CsvImport
        path={`${recordPath('dnc-list', id)}import/`}
        what="numbers"
        columns='A "phone_number" column (or "contact"), or a single column of numbers with or without a header.'
        invalidate={['dnc-contact', 'dnc-list']}
      />
      <ConfirmDialog open={confirming} title={`Delete the DNC list “${l.name}”?`} confirmLabel="Delete DNC list" onConfirm={() => remove.mutate()} onCancel={() => setConfirming(false)}>
        <p>Its numbers are deleted with it and may be called again.</p>
      </ConfirmDialog>
    </>
  );
}
