/** The webhooks the user sees (an admin: everyone's), a page at a time. */
import { Link } from 'react-router';
import type { Webhook } from '../../api/admin-types.ts';
import { useUser } from '../../api/session.tsx';
import { PagedResults, ResultsTable, useUrlPagedList } from '../../components/paged-list.tsx';
import { EmptyState, Time } from '../../components/ui.tsx';
import { ownerName, useUsernames } from './owners.ts';

export function WebhookStatus({ hook }: { hook: Webhook }) {
  if (!hook.active) return <span className="status status-3">Off</span>;
  if (hook.failing_since) return <span className="status status-2">Failing</span>;
  return <span className="status status-1">On</span>;
}

export function WebhookList() {
  const { is_admin } = useUser();
  const owners = useUsernames(is_admin);
  const list = useUrlPagedList<Webhook>('webhook');
  return (
    <>
      <div className="page-head">
        <h1>Webhooks</h1>
        <Link className="button primary" to="/webhooks/new">
          New webhook
        </Link>
      </div>
      <PagedResults
        list={list}
        empty={
          <EmptyState title="No webhook yet">
            <p>
              A webhook POSTs each event you choose (a call ending, a campaign ending, a message delivered…) to your server, signed with its secret.{' '}
              <Link to="/webhooks/new">Add the first one</Link>.
            </p>
          </EmptyState>
        }
      >
        {(rows) => (
          <ResultsTable
            caption={`Webhooks, page ${list.page}`}
            head={
              <>
                <th scope="col">Endpoint</th>
                <th scope="col">Events</th>
                <th scope="col">State</th>
                {is_admin && <th scope="col">Owner</th>}
                <th scope="col">Created</th>
              </>
            }
          >
            {rows.map((h) => (
              <tr key={h.id}>
                <td className="wrap">
                  <Link to={`/webhooks/${h.id}`}>{h.url}</Link>
                  {h.description && <div className="muted">{h.description}</div>}
                </td>
                <td className="wrap">{h.events.length ? h.events.join(', ') : 'Every event'}</td>
                <td>
                  <WebhookStatus hook={h} />
                </td>
                {is_admin && <td>{ownerName(owners.data, h.user)}</td>}
                <td>
                  <Time value={h.created_date} />
                </td>
              </tr>
            ))}
          </ResultsTable>
        )}
      </PagedResults>
    </>
  );
}
