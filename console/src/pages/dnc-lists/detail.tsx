/** One DNC list: rename, global or not, delete; its numbers (add, remove); CSV import and export. */
import { useState, type FormEvent } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError, del, get, listPath, patch, post, recordPath, type Page } from '../../api/client.ts';
import { CsvImport } from '../../components/csv-import.tsx';
import { ConfirmDialog, EmptyState, ErrorMessage, Field, Loading, Pager, Time } from '../../components/ui.tsx';
import { formatInteger } from '../../format.ts';
import { useNumberCount, type DncList, type DncNumber } from './types.ts';

const PAGE_SIZE = 20;

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
  const fields = save.error instanceof ApiError ? save.error.fields : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <section className="inline-form" aria-labelledby="edit-dnc">
      <h2 id="edit-dnc">Rename</h2>
      <form onSubmit={submit}>
        <Field label="Name" errors={fields.name}>
          {(p) => <input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} autoFocus />}
        </Field>
        <label className="check">
          <input type="checkbox" checked={global} onChange={(e) => setGlobal(e.target.checked)} />
          Global: applies to every campaign of its owner
        </label>
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
  const [page, setPage] = useState(1);
  const numbers = useQuery({
    queryKey: ['dnc-contact', { dnc_id: list.id }, 'page', page],
    queryFn: () => get<Page<DncNumber>>(listPath('dnc-contact', { dnc_id: list.id, page, page_size: PAGE_SIZE })),
    placeholderData: keepPreviousData,
  });
  return (
    <section aria-labelledby="numbers-title">
      <h2 id="numbers-title">Numbers</h2>
      <ErrorMessage error={numbers.error} />
      {numbers.isPending ? (
        <Loading />
      ) : !numbers.data || numbers.data.count === 0 ? (
        <EmptyState title="No number on this list yet">
          <p>Add the numbers that must not be called below, or import a CSV file of them.</p>
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table className="stack">
              <caption className="sr-only">Numbers, page {page}</caption>
              <thead>
                <tr>
                  <th scope="col">Number</th>
                  <th scope="col">Added</th>
                  <th scope="col">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {numbers.data.results.map((n) => (
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
              </tbody>
            </table>
          </div>
          <Pager page={page} count={numbers.data.count} pageSize={PAGE_SIZE} onPage={setPage} />
        </>
      )}
    </section>
  );
}

export function DncListPage() {
  const id = Number(useParams().id);
  const client = useQueryClient();
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const list = useQuery({ queryKey: ['dnc-list', id], queryFn: () => get<DncList>(recordPath('dnc-list', id)) });
  const count = useNumberCount(id);
  const remove = useMutation({
    mutationFn: () => del(recordPath('dnc-list', id)),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: ['dnc-list'] });
      void client.invalidateQueries({ queryKey: ['dnc-contact'] });
      navigate('/dnc-lists');
    },
    onSettled: () => setConfirming(false),
  });
  if (list.isPending) return <Loading />;
  if (!list.data) {
    return (
      <>
        <p className="crumbs">
          <Link to="/dnc-lists">DNC lists</Link>
        </p>
        <ErrorMessage error={list.error instanceof ApiError && list.error.status === 404 ? new Error('There is no such DNC list, or it is not yours.') : list.error} />
      </>
    );
  }
  const l = list.data;
  return (
    <>
      <p className="crumbs">
        <Link to="/dnc-lists">DNC lists</Link> /
      </p>
      <div className="page-head">
        <h1>{l.name}</h1>
        <button type="button" onClick={() => setEditing(true)} disabled={editing}>
          Rename
        </button>
        <a className="button" href={`${recordPath('dnc-list', id)}export/`} download>
          Export CSV
        </a>
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          Delete
        </button>
      </div>
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
