/**
 * The calls of a campaign in flight right now: its callrequests with status 7 (CALLING). No event
 * says a call started, so while the campaign runs the list is read again every 2 s; call.completed
 * makes ['callrequest', …] stale (api/events.tsx), so an ended call leaves it at once.
 */
import { useQuery } from '@tanstack/react-query';
import { get, listPath, type Page } from '../../api/client.ts';
import type { CallRequest } from '../../api/types.ts';
import { EmptyState, ErrorMessage, Loading, Time } from '../../components/ui.tsx';
import { formatInteger } from '../../format.ts';
import './results.css';

/** CallRequestStatus.Calling (src/db/schema): the engine has dialled and the call has not ended. */
const CALLING = 7;
const SHOWN = 100;

export function CallsInProgress({ campaignId, running }: { campaignId: number; running: boolean }) {
  const calls = useQuery({
    queryKey: ['callrequest', 'calling', campaignId],
    queryFn: () => get<Page<CallRequest>>(listPath('callrequest', { campaign_id: campaignId, status: CALLING, page_size: SHOWN })),
    refetchInterval: running ? 2000 : false,
  });
  const count = calls.data?.count ?? 0;
  return (
    <section aria-labelledby="live-calls-title" className="live-calls" data-testid="live-calls">
      <h2 id="live-calls-title">
        Calls in progress{calls.data && count > 0 ? ` (${formatInteger(count)})` : ''}
      </h2>
      <ErrorMessage error={calls.error} />
      {calls.isPending ? (
        <Loading />
      ) : count === 0 ? (
        <EmptyState title="No call in progress">
          <p>{running ? 'The numbers being dialled appear here while their calls last.' : 'Calls appear here while the campaign runs.'}</p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Calls of this campaign in progress</caption>
            <thead>
              <tr>
                <th scope="col">Number</th>
                <th scope="col">Started</th>
                <th scope="col">Attempt</th>
              </tr>
            </thead>
            <tbody>
              {calls.data?.results.map((c) => (
                <tr key={c.id}>
                  <td>{c.phone_number}</td>
                  <td>
                    <Time value={c.call_time ?? c.created_date} />
                  </td>
                  <td>{formatInteger(c.attempt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {count > SHOWN && <p className="muted">The first {SHOWN} of {formatInteger(count)} are shown.</p>}
        </div>
      )}
    </section>
  );
}
