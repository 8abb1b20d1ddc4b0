/** The SMS campaigns, a page at a time. */
import { Link } from 'react-router';
import type { SmsCampaignRecord as SmsCampaign } from '../../api/admin-types.ts';
import { dialingStateWords, statusName } from '../../campaign-words.ts';
import { doneCount } from '../../components/campaign-progress.tsx';
import { PagedResults, ResultsTable, useUrlPagedList } from '../../components/paged-list.tsx';
import { EmptyState, Time } from '../../components/ui.tsx';
import { formatInteger } from '../../format.ts';
import { smsProgress } from './rates.tsx';

export function SmsCampaignList() {
  const list = useUrlPagedList<SmsCampaign>('sms-campaigns');
  return (
    <>
      <div className="page-head">
        <h1>SMS campaigns</h1>
        <Link className="button primary" to="/sms-campaigns/new">
          New SMS campaign
        </Link>
      </div>
      <PagedResults
        list={list}
        empty={
          <EmptyState title="No SMS campaign yet">
            <p>
              An SMS campaign sends one text to every contact of its phonebooks through an SMS gateway.{' '}
              <Link to="/sms-campaigns/new">Create the first one</Link>.
            </p>
          </EmptyState>
        }
      >
        {(rows) => (
          <ResultsTable
            caption={`SMS campaigns, page ${list.page}`}
            head={
              <>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Now</th>
                <th scope="col">Done</th>
                <th scope="col">Sent</th>
                <th scope="col">Delivered</th>
                <th scope="col">Created</th>
              </>
            }
          >
            {rows.map((c) => {
              const p = smsProgress(c);
              return (
                <tr key={c.id}>
                  <td>
                    <Link to={`/sms-campaigns/${c.id}`}>{c.name}</Link>
                  </td>
                  <td>{statusName(c.status)}</td>
                  <td>{dialingStateWords(c.dialing_state)}</td>
                  <td className="num">
                    {formatInteger(doneCount(c))} / {formatInteger(c.progress.subscribers.total)}
                  </td>
                  <td className="num">{formatInteger(p.sent)}</td>
                  <td className="num">{formatInteger(p.delivered)}</td>
                  <td>
                    <Time value={c.created_date} />
                  </td>
                </tr>
              );
            })}
          </ResultsTable>
        )}
      </PagedResults>
    </>
  );
}
