/** An SMS campaign's messages (/rest-api/sms-message/?sms_campaign_id=), filtered by status and number, a page at a time. */
import { useState, type FormEvent } from 'react';
import { listPath } from '../../api/client.ts';
import type { SmsMessage } from '../../api/admin-types.ts';
import { PagedResults, ResultsTable, usePagedQuery } from '../../components/paged-list.tsx';
import { AnyOf, Field, Time } from '../../components/ui.tsx';
import { MESSAGE_STATUSES } from '../../campaign-words.ts';
import { formatInteger, formatMoney } from '../../format.ts';

const PAGE_SIZE = 25;
/** A message's status in the table: the filter's words, shorter where they are long. */
const STATUS_WORDS: Record<string, string> = { ...Object.fromEntries(MESSAGE_STATUSES), unsent: 'Sending', sent: 'Sent' };

export function SmsMessages({ campaignId }: { campaignId: number }) {
  const [draft, setDraft] = useState({ status: '', recipient_number: '' });
  const [filters, setFilters] = useState(draft);
  const messages = usePagedQuery<SmsMessage>(
    ['sms-message', 'campaign', campaignId, filters],
    (page, page_size) => listPath('sms-message', { sms_campaign_id: campaignId, status: filters.status, recipient_number: filters.recipient_number.trim(), page, page_size }),
    { pageSize: PAGE_SIZE },
  );
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilters(draft);
    messages.onPage(1);
  };
  const filtered = Boolean(filters.status || filters.recipient_number);
  return (
    <section aria-labelledby="messages-title">
      <h2 id="messages-title">Messages</h2>
      <form className="filters" onSubmit={apply} aria-label="Filter the messages">
        <AnyOf label="Status" value={draft.status} options={MESSAGE_STATUSES} onChange={(status) => setDraft({ ...draft, status })} />
        <Field label="Recipient">
          {(p) => <input {...p} type="search" value={draft.recipient_number} onChange={(e) => setDraft({ ...draft, recipient_number: e.target.value })} />}
        </Field>
        <button type="submit">Filter</button>
      </form>
      <PagedResults list={messages} empty={<p className="muted">No message {filtered ? 'matches these filters' : 'yet: messages appear here as they are sent'}.</p>}>
        {(rows) => (
          <ResultsTable
            caption="Messages of this campaign"
            head={
              <>
                <th scope="col">Recipient</th>
                <th scope="col">Status</th>
                <th scope="col">Sent</th>
                <th scope="col" title="When the delivery report (delivered or failed) arrived">Report</th>
                <th scope="col">Parts</th>
                <th scope="col">Cost</th>
                <th scope="col">Error</th>
              </>
            }
          >
            {rows.map((m) => (
              <tr key={m.id}>
                <td>{m.recipient_number}</td>
                <td>
                  <span className={`msg msg-${m.status}`}>{STATUS_WORDS[m.status] ?? m.status}</span>
                </td>
                <td>
                  <Time value={m.send_date} />
                </td>
                <td>
                  <Time value={m.delivery_date} />
                </td>
                <td className="num">{formatInteger(m.parts)}</td>
                <td className="num">{formatMoney(m.cost)}</td>
                <td className="wrap">{m.error || '–'}</td>
              </tr>
            ))}
          </ResultsTable>
        )}
      </PagedResults>
    </section>
  );
}
