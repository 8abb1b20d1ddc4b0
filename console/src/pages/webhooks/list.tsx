/** The webhooks the user sees (an admin: everyone's), a page at a time. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { get, listPath, type Page } from '../../api/client.ts';
import type { Webhook } from '../../api/admin-types.ts';
import { useUser } from '../../api/session.tsx';
import { EmptyState, ErrorMessage, Loading, Pager, Time } from '../../components/ui.tsx';
import { ownerName, useUsernames } from './owners.ts';

const PAGE_SIZE = 20;

export function WebhookStatus({ hook }: { hook: Webhook }) {
  if (!hook.active) return <span className="status status-3">Off</span>;
  if (hook.failing_since) return <span className="status status-2">Failing</span>;
  return <span className="status status-1">On</span>;
}

export function WebhookList() {
  const { is_admin } = useUser();
  const [search, setSearch] = useSearchParams();
  const page = Number(search.get('page') ?? '1') || 1;
  const owners = useUsernames(is_admin);
  const list = useQuery({
    queryKey: ['webhook', 'page', page],
    queryFn: () => get<Page<Webhook>>(listPath('webhook', { page, page_size: PAGE_SIZE })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <div className="page-head">
        <h1>Webhooks</h1>
        <Link className="button primary" to="/webhooks/new">
          New webhook
        </Link>
      </div>
      <ErrorMessage error={list.error} />
      {list.isPending ? (
        <Loading />
      ) : !list.data || list.data.count === 0 ? (
        <EmptyState title="No webhook yet">
          <p>
            A webhook POSTs each event you choose (a call ending, a campaign ending, a message delivered…) to your server, signed with its secret.{' '}
            <Link to="/webhooks/new">Add the first one</Link>.
          </p>
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Webhooks, page {page}</caption>
              <thead>
                <tr>
                  <th scope="col">Endpoint</th>
                  <th scope="col">Events</th>
                  <th scope="col">State</th>
                  {is_admin && <th scope="col">Owner</th>}
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.data.results.map((h) => (
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
              </tbody>
            </table>
          </div>
          <Pager page={page} count={list.data.count} pageSize={PAGE_SIZE} onPage={(p) => setSearch({ page: String(p) })} />
        </>
      )}
    </>
  );
}
