/** The voice campaigns, a page at a time, newest ids last as the API lists them. */
import { Link } from 'react-router';
import type { VoiceCampaign } from '../../api/types.ts';
import { dialingStateWords, statusName } from '../../campaign-words.ts';
import { doneCount } from '../../components/campaign-progress.tsx';
import { PagedResults, ResultsTable, useUrlPagedList } from '../../components/paged-list.tsx';
import { EmptyState, Time } from '../../components/ui.tsx';
import { formatInteger } from '../../format.ts';

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
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Now</th>
                <th scope="col">Done</th>
                <th scope="col">Created</th>
              </>
            }
          >
            {rows.map((c) => (
              <tr key={c.id}>
                <td>
                  <Link to={`/campaigns/${c.id}`}>{c.name}</Link>
                </td>
                <td>{statusName(c.status)}</td>
                <td>{dialingStateWords(c.dialing_state)}</td>
                <td className="num">
                  {formatInteger(doneCount(c))} / {formatInteger(c.progress.subscribers.total)}
                </td>
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
