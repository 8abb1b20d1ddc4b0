/** The voice campaigns, a page at a time, newest ids last as the API lists them. */
import { Link } from 'react-router';
import type { VoiceCampaign } from '../../api/types.ts';
import { CampaignCells, CampaignHeads } from '../../components/campaign-page.tsx';
import { PagedResults, ResultsTable, useUrlPagedList } from '../../components/paged-list.tsx';
import { EmptyState, Time } from '../../components/ui.tsx';

export function CampaignList() {
  const list = useUrlPagedList<VoiceCampaign>('campaigns');
  return (
    <>
      <div className="page-head">
        <h1>Campaigns</h1>
        <Link className="button primary" to="/campaigns/new">
          New campaign
        </Link>
      </div>
      <PagedResults
        list={list}
        empty={
          <EmptyState title="No campaign yet">
            <p>
              A campaign calls the contacts of its phonebooks and plays them a survey through a gateway. <Link to="/campaigns/new">Create the first one</Link>.
            </p>
          </EmptyState>
        }
      >
        {(rows) => (
          <ResultsTable
            caption={`Campaigns, page ${list.page}`}
            head={
              <>
                <CampaignHeads />
                <th scope="col">Created</th>
              </>
            }
          >
            {rows.map((c) => (
              <tr key={c.id}>
                <CampaignCells campaign={c} resource="campaigns" />
                <td>
                  <Time value={c.created_date} />
                </td>
              </tr>
            ))}
          </ResultsTable>
        )}
      </PagedResults>
    </>
  );
}
