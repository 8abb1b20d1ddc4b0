/** The SMS campaigns, a page at a time. */
import { Link } from 'react-router';
import type { SmsCampaignRecord as SmsCampaign } from '../../api/admin-types.ts';
import { CampaignCells, CampaignHeads } from '../../components/campaign-page.tsx';
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
                <CampaignHeads />
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
                  <CampaignCells campaign={c} resource="sms-campaigns" />
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
