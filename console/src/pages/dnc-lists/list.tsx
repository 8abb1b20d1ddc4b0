/** The DNC lists, a page at a time, with their numbers counted; a form to add one; the number check. */
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { listPath, post } from '../../api/client.ts';
import { PagedResults, ResultsTable, useUrlPagedList } from '../../components/paged-list.tsx';
import { fieldErrors, FormSection } from '../../components/record-page.tsx';
import { EmptyState, Field, Time } from '../../components/ui.tsx';
import { formatInteger } from '../../format.ts';
import { BlockedCheck } from './check.tsx';
import { useNumberCount, type DncList } from './types.ts';
import '../../components/lists.css';

function NumberCount({ id }: { id: number }) {
  const count = useNumberCount(id);
  return <>{count.data === undefined ? '…' : formatInteger(count.data)}</>;
}

function NewList() {
  const client = useQueryClient();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [global, setGlobal] = useState(false);
  const create = useMutation({
    mutationFn: () => post<DncList>(listPath('dnc-list'), { name, is_global: global }),
    onSuccess: (list) => {
      void client.invalidateQueries({ queryKey: ['dnc-list'] });
      navigate(`/dnc-lists/${list.id}`);
    },
  });
  const fields = fieldErrors(create.error);
  return (
    <FormSection id="new-dnc" title="New DNC list" submitLabel="Create DNC list" pending={create.isPending} error={create.error} onSubmit={() => create.mutate()}>
      <Field label="Name" errors={fields.name}>
        {(p) => <input {...p} name="name" value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <label className="check">
        <input type="checkbox" checked={global} onChange={(e) => setGlobal(e.target.checked)} />
        Global: applies to every campaign of yours
      </label>
    </FormSection>
  );
}

export function DncLists() {
  const list = useUrlPagedList<DncList>('dnc-list');
  return (
    <>
      <div className="page-head">
        <h1>DNC lists</h1>
      </div>
      <p className="muted">
        Numbers on a do-not-call list are never called or messaged: a campaign checks its own list and every global list of its owner (and of
        administrators) before each call.
      </p>
      <PagedResults
        list={list}
        empty={
          <EmptyState title="No DNC list yet">
            <p>Create one below, then add the numbers that must not be called, one by one or from a CSV file.</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <ResultsTable
            caption={`DNC lists, page ${list.page}`}
            head={
              <>
                <th scope="col">Name</th>
                <th scope="col">Numbers</th>
                <th scope="col">Applies to</th>
                <th scope="col">Created</th>
              </>
            }
          >
            {rows.map((l) => (
              <tr key={l.id}>
                <td>
                  <Link to={`/dnc-lists/${l.id}`}>{l.name}</Link>
                </td>
                <td className="num">
                  <NumberCount id={l.id} />
                </td>
                <td>{l.is_global ? 'Every campaign (global)' : 'Campaigns that choose it'}</td>
                <td>
                  <Time value={l.created_date} />
                </td>
              </tr>
            ))}
          </ResultsTable>
        )}
      </PagedResults>
      <BlockedCheck />
      <NewList />
    </>
  );
}
