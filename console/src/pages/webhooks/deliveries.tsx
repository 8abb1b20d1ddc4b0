/**
 * A webhook's delivery history (newest first), a row a request (its first event's type and how
 * many more it carried): status, attempts, the answer's status, latency
 * and excerpt, time; any delivery can be sent again. Deliveries write no event, so the list is
 * read again every few seconds while it is shown.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { recordPath, request } from '../../api/client.ts';
import type { Delivery } from '../../api/admin-types.ts';
import { ActionsHead, PagedResults, ResultsTable, usePagedQuery } from '../../components/paged-list.tsx';
import { ErrorMessage, Time } from '../../components/ui.tsx';
import { formatInteger } from '../../format.ts';

const REFRESH_MS = 5000;
const STATUS_CLASS: Record<string, string> = { delivered: 'msg-delivered', failed: 'msg-failed', pending: 'msg-sent' };

export function Deliveries({ webhookId }: { webhookId: number }) {
  const client = useQueryClient();
  const base = `${recordPath('webhook', webhookId)}deliveries/`;
  const list = usePagedQuery<Delivery>(['webhook', 'deliveries', webhookId], (page, size) => `${base}?page=${page}&page_size=${size}`, {
    refetchInterval: REFRESH_MS,
  });
  const redeliver = useMutation({
    mutationFn: (d: number) => request('POST', `${base}${d}/redeliver/`),
    onSettled: () => client.invalidateQueries({ queryKey: ['webhook', 'deliveries', webhookId] }),
  });
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Deliveries</h2>
      <p className="muted">Newest first; read again every {REFRESH_MS / 1000} seconds.</p>
      <ErrorMessage error={redeliver.error} />
      <PagedResults list={list} empty={<p className="muted">No delivery yet: one is made for each event this webhook listens to, or for each batch of them (start a campaign to see some).</p>}>
        {(rows) => (
          <ResultsTable
            testId="deliveries"
            caption="Deliveries of this webhook"
            head={
              <>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Answer</th>
                <th scope="col">Latency</th>
                <th scope="col">Response</th>
                <th scope="col">Time</th>
                <ActionsHead />
              </>
            }
          >
            {rows.map((d) => (
              <tr key={d.id}>
                <td>
                  {d.event_type}
                  {d.event_count > 1 && ` and ${formatInteger(d.event_count - 1)} more`}
                  <div className="muted mono">{d.event_id}</div>
                </td>
                <td>
                  <span className={`msg ${STATUS_CLASS[d.status] ?? ''}`}>{d.status}</span>
                  <div className="muted">
                    {formatInteger(d.attempts)} {d.attempts === 1 ? 'attempt' : 'attempts'}
                  </div>
                  {d.next_attempt && (
                    <div className="muted">
                      next <Time value={d.next_attempt} />
                    </div>
                  )}
                </td>
                <td className="num">{d.response_status ?? '–'}</td>
                <td className="num">{d.latency_ms == null ? '–' : `${formatInteger(d.latency_ms)} ms`}</td>
                <td className="wrap mono excerpt">{d.error ? <span className="field-error">{d.error}</span> : (d.response_excerpt ?? '–')}</td>
                <td>
                  <Time value={d.delivered_at ?? d.created} />
                </td>
                <td>
                  <button type="button" disabled={redeliver.isPending} onClick={() => redeliver.mutate(d.id)} aria-label={`Redeliver ${d.event_type} ${d.event_id}`}>
                    Redeliver
                  </button>
                </td>
              </tr>
            ))}
          </ResultsTable>
        )}
      </PagedResults>
    </section>
  );
}
