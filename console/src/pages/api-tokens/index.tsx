/**
 * API tokens (/rest-api/tokens/): yours (an admin: everyone's). Creating one shows its key once;
 * revoking one (after a confirmation) refuses it at once.
 */
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, del, listPath, post, recordPath } from '../../api/client.ts';
import type { ApiToken } from '../../api/admin-types.ts';
import { useUser } from '../../api/session.tsx';
import { SecretBox } from '../../components/secret-box.tsx';
import { ActionsHead, PagedResults, ResultsTable, useUrlPagedList } from '../../components/paged-list.tsx';
import { ConfirmDialog, EmptyState, ErrorMessage, Field, Time } from '../../components/ui.tsx';
import { useUsernames } from '../webhooks/owners.ts';
import '../../components/admin.css';

function NewToken({ onKey }: { onKey: (key: string) => void }) {
  const me = useUser();
  const names = useUsernames(me.is_admin);
  const [user, setUser] = useState('');
  const client = useQueryClient();
  const create = useMutation({
    mutationFn: () => post<ApiToken & { key: string }>(listPath('tokens'), user ? { user } : {}),
    onSuccess: async (t) => {
      onKey(t.key);
      await client.invalidateQueries({ queryKey: ['tokens'] });
    },
  });
  const errs = create.error instanceof ApiError ? create.error.fields : {};
  return (
    <form
      className="filters"
      aria-label="New token"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate();
      }}
    >
      {me.is_admin && (
        <Field label="For" errors={errs.user}>
          {(p) => (
            <select {...p} value={user} onChange={(e) => setUser(e.target.value)}>
              <option value="">Me ({me.username})</option>
              {[...(names.data ?? [])]
                .filter(([, n]) => n !== me.username)
                .map(([id, n]) => (
                  <option key={id} value={String(id)}>
                    {n}
                  </option>
                ))}
            </select>
          )}
        </Field>
      )}
      <button type="submit" className="primary" disabled={create.isPending}>
        {create.isPending ? 'Creating…' : 'Create a token'}
      </button>
      {create.error && !Object.keys(errs).length ? <ErrorMessage error={create.error} /> : null}
    </form>
  );
}

export default function ApiTokens() {
  const me = useUser();
  const [key, setKey] = useState<string | undefined>();
  const [revoking, setRevoking] = useState<ApiToken | undefined>();
  const client = useQueryClient();
  const list = useUrlPagedList<ApiToken>('tokens');
  const revoke = useMutation({
    mutationFn: (t: ApiToken) => del(recordPath('tokens', t.id)),
    onSettled: () => client.invalidateQueries({ queryKey: ['tokens'] }),
  });
  return (
    <>
      <div className="page-head">
        <h1>API tokens</h1>
      </div>
      <p className="muted">
        A program calls the API with <code>Authorization: Token &lt;key&gt;</code> instead of a password. Revoke a token you no longer use.
      </p>
      {key ? <SecretBox title="The new token's key" value={key} onDone={() => setKey(undefined)} /> : <NewToken onKey={setKey} />}
      <ErrorMessage error={revoke.error} />
      <PagedResults
        list={list}
        empty={
          <EmptyState title="No token yet">
            <p>Create one above for a script or an integration; its key is shown once.</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <ResultsTable
            caption={`API tokens, page ${list.page}`}
            head={
              <>
                <th scope="col">Key starts with</th>
                {me.is_admin && <th scope="col">User</th>}
                <th scope="col">Created</th>
                <ActionsHead />
              </>
            }
          >
            {rows.map((t) => (
              <tr key={t.id}>
                <td className="mono">{t.key_prefix}…</td>
                {me.is_admin && <td>{t.username}</td>}
                <td>
                  <Time value={t.created_date} />
                </td>
                <td>
                  <button type="button" className="danger" onClick={() => setRevoking(t)} aria-label={`Revoke the token ${t.key_prefix}…`}>
                    Revoke…
                  </button>
                </td>
              </tr>
            ))}
          </ResultsTable>
        )}
      </PagedResults>
      <ConfirmDialog
        open={revoking !== undefined}
        title={`Revoke the token ${revoking?.key_prefix ?? ''}…?`}
        confirmLabel="Revoke the token"
        onCancel={() => setRevoking(undefined)}
        onConfirm={() => {
          if (revoking) revoke.mutate(revoking);
          setRevoking(undefined);
        }}
      >
        <p>Programs using it are refused at once (401). This cannot be undone; make a new token if needed.</p>
      </ConfirmDialog>
    </>
  );
}
