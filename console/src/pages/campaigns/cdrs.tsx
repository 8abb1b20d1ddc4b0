/** A campaign's call records: filters, a page at a time, and the same selection as a CSV download. */
import { useState, type FormEvent } from 'react';
import { listPath } from '../../api/client.ts';
import type { Cdr } from '../../api/types.ts';
import { DISPOSITIONS } from '../../campaign-words.ts';
import { PagedResults, ResultsTable, usePagedQuery } from '../../components/paged-list.tsx';
import { AnyOf, Field, Time } from '../../components/ui.tsx';
import { formatInteger, formatMoney, formatSeconds, fromLocalInput } from '../../format.ts';

const PAGE_SIZE = 25;
const AMD = ['No detection', 'Person', 'Machine', 'Unsure'];
/** The outcome filter shows the codes, as the calls' column does. */
const DISPOSITION_CODES = DISPOSITIONS.map(([d]) => [d, d] as const);

interface Filters {
  phone_number: string;
  disposition: string;
  from: string;
  to: string;
}
const none: Filters = { phone_number: '', disposition: '', from: '', to: '' };

function query(campaignId: number, f: Filters) {
  return {
    campaign_id: campaignId,
    phone_number: f.phone_number.trim() || undefined,
    disposition: f.disposition || undefined,
    starting_date__gte: fromLocalInput(f.from),
    starting_date__lte: fromLocalInput(f.to),
  };
}

export function CampaignCdrs({ campaignId }: { campaignId: number }) {
  const [draft, setDraft] = useState<Filters>(none);
  const [filters, setFilters] = useState<Filters>(none);
  const q = query(campaignId, filters);
  const cdrs = usePagedQuery<Cdr>(['cdr', 'campaign', campaignId, filters], (page, page_size) => listPath('cdr', { ...q, page, page_size }), { pageSize: PAGE_SIZE });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilters(draft);
    cdrs.onPage(1);
  };
  const set = (k: keyof Filters) => (e: { target: { value: string } }) => setDraft({ ...draft, [k]: e.target.value });

  return (
    <section aria-labelledby="cdr-title">
      <div className="page-head">
        <h2 id="cdr-title">Calls</h2>
        <a className="button" href={listPath('cdr', { ...q, format: 'csv' })} download={`campaign-${campaignId}-calls.csv`}>
          Export CSV
        </a>
      </div>
      <form className="filters" onSubmit={apply} aria-label="Filter the calls">
        <Field label="Phone number">{(p) => <input {...p} type="search" value={draft.phone_number} onChange={set('phone_number')} />}</Field>
        <AnyOf label="Outcome" value={draft.disposition} options={DISPOSITION_CODES} onChange={(disposition) => setDraft({ ...draft, disposition })} />
        <Field label="Started from">{(p) => <input {...p} type="datetime-local" value={draft.from} onChange={set('from')} />}</Field>
        <Field label="Started until">{(p) => <input {...p} type="datetime-local" value={draft.to} onChange={set('to')} />}</Field>
        <button type="submit">Filter</button>
      </form>
      <PagedResults list={cdrs} empty={<p className="muted">No call matches{filters === none ? ' yet: calls appear here as they end' : ' these filters'}.</p>}>
        {(rows) => (
          <ResultsTable
            className="cdrs"
            caption="Calls of this campaign"
            head={
              <>
                <th scope="col">Started</th>
                <th scope="col">Number</th>
                <th scope="col">Outcome</th>
                <th scope="col">Duration</th>
                <th scope="col">Billed</th>
                <th scope="col">Cost</th>
                <th scope="col">Machine detection</th>
              </>
            }
          >
            {rows.map((c) => (
              <tr key={c.url}>
                <td>
                  <Time value={c.starting_date} />
                </td>
                <td>{c.phone_number}</td>
                <td>{c.disposition}</td>
                <td className="num">{formatSeconds(c.duration)}</td>
                <td className="num">{formatSeconds(c.billed_duration)}</td>
                <td className="num">{formatMoney(c.call_cost)}</td>
                <td>{AMD[c.amd_status] ?? formatInteger(c.amd_status)}</td>
              </tr>
            ))}
          </ResultsTable>
        )}
      </PagedResults>
    </section>
  );
}
