/** The SMS campaigns, a page at a time. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { get, listPath, type Page } from '../../api/client.ts';
import type { SmsCampaignRecord as SmsCampaign } from '../../api/admin-types.ts';
import { dialingStateWords, statusName } from '../../campaign-words.ts';
import { doneCount } from '../../components/campaign-progress.tsx';
import { EmptyState, ErrorMessage, Loading, Pager, Time } from '../../components/ui.tsx';
import { formatInteger } from '../../format.ts';
import { smsProgress } from './rates.tsx';

const PAGE_SIZE = 20;

export function SmsCampaignList() {
  const [search, setSearch] = useSearchParams();
  const page = Number(search.get('page') ?? '1') || 1;
  const list = useQuery({
    queryKey: ['sms-campaigns', 'page', page],
    queryFn: () => get<Page<SmsCampaign>>(listPath('sms-campaigns', { page, page_size: PAGE_SIZE })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <div className="page-head">
        <h1>SMS campaigns</h1>
        <Link className="button primary" to="/sms-campaigns/new">
          New SMS campaign
        </Link>
      </div>
      <ErrorMessage error={list.error} />
      {list.isPending ? (
        <Loading />
      ) : !list.data || list.data.count === 0 ? (
        <EmptyState title="No SMS campaign yet">
          <p>
            An SMS campaign sends one text to every contact of its phonebooks through an SMS gateway.{' '}
            <Link to="/sms-campaigns/new">Create the first one</Link>.
          </p>
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">SMS campaigns, page {page}</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Now</th>
                  <th scope="col">Done</th>
                  <th scope="col">Sent</th>
                  <th scope="col">Delivered</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.data.results.map((c) => {
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
              </tbody>
            </table>
          </div>
          <Pager page={page} count={list.data.count} pageSize={PAGE_SIZE} onPage={(p) => setSearch({ page: String(p) })} />
        </>
      )}
    </>
  );
}
