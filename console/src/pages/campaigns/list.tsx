/** The voice campaigns, a page at a time, newest ids last as the API lists them. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { get, listPath, type Page } from '../../api/client.ts';
import type { VoiceCampaign } from '../../api/types.ts';
import { dialingStateWords, statusName } from '../../campaign-words.ts';
import { doneCount } from '../../components/campaign-progress.tsx';
import { EmptyState, ErrorMessage, Loading, Pager, Time } from '../../components/ui.tsx';
import { formatInteger } from '../../format.ts';

const PAGE_SIZE = 20;

export function CampaignList() {
  const [search, setSearch] = useSearchParams();
  const page = Number(search.get('page') ?? '1') || 1;
  const list = useQuery({
    queryKey: ['campaigns', 'page', page],
    queryFn: () => get<Page<VoiceCampaign>>(listPath('campaigns', { page, page_size: PAGE_SIZE })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <div className="page-head">
        <h1>Campaigns</h1>
        <Link className="button primary" to="/campaigns/new">
          New campaign
        </Link>
      </div>
      <ErrorMessage error={list.error} />
      {list.isPending ? (
        <Loading />
      ) : !list.data || list.data.count === 0 ? (
        <EmptyState title="No campaign yet">
          <p>
            A campaign calls the contacts of its phonebooks and plays them a survey through a gateway. <Link to="/campaigns/new">Create the first one</Link>.
          </p>
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Campaigns, page {page}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Now</th>
                  <th scope="col">Done</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.data.results.map((c) => (
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
              </tbody>
            </table>
          </div>
          <Pager page={page} count={list.data.count} pageSize={PAGE_SIZE} onPage={(p) => setSearch({ page: String(p) })} />
        </>
      )}
    </>
  );
}
