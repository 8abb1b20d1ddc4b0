/** Every account, a page at a time (admins only): who can sign in, their balance and rates. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { get, listPath, type Page } from '../../api/client.ts';
import type { Account } from '../../api/admin-types.ts';
import { EmptyState, ErrorMessage, Loading, Pager, Time } from '../../components/ui.tsx';
import { formatMoney } from '../../format.ts';
import '../../components/admin.css';

const PAGE_SIZE = 20;

export function AccountList() {
  const [search, setSearch] = useSearchParams();
  const page = Number(search.get('page') ?? '1') || 1;
  const list = useQuery({
    queryKey: ['accounts', 'page', page],
    queryFn: () => get<Page<Account>>(listPath('accounts', { page, page_size: PAGE_SIZE })),
    placeholderData: keepPreviousData,
  });
  return (
    <>
      <div className="page-head">
        <h1>Users</h1>
        <Link className="button" to="/payments">
          Payments
        </Link>
        <Link className="button primary" to="/users/new">
          New user
        </Link>
      </div>
      <ErrorMessage error={list.error} />
      {list.isPending ? (
        <Loading />
      ) : !list.data || list.data.count === 0 ? (
        <EmptyState title="No user yet">
          <p>
            <Link to="/users/new">Create a user</Link> for each operator: they sign in here or call the API with their password or a token.
          </p>
        </EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Users, page {page}</caption>
              <thead>
                <tr>
                  <th scope="col">Username</th>
                  <th scope="col">Name</th>
                  <th scope="col">Role</th>
                  <th scope="col">Account</th>
                  <th scope="col">Balance</th>
                  <th scope="col">Call rate</th>
                  <th scope="col">SMS rate</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.data.results.map((a) => (
                  <tr key={a.id} data-username={a.username}>
                    <td>
                      <Link to={`/users/${a.id}`}>{a.username}</Link>
                    </td>
                    <td>{[a.first_name, a.last_name].filter(Boolean).join(' ') || '–'}</td>
                    <td>{a.is_admin ? 'Admin' : 'User'}</td>
                    <td>
                      <span className={`status ${a.is_active ? 'status-1' : 'status-3'}`}>{a.is_active ? 'Active' : 'Deactivated'}</span>
                    </td>
                    <td className="num" data-testid="balance">
                      {formatMoney(a.balance)}
                      {a.balance_low_threshold != null && a.balance < a.balance_low_threshold ? ' (low)' : ''}
                    </td>
                    <td className="num">{formatMoney(a.call_rate)}</td>
                    <td className="num">{formatMoney(a.sms_rate)}</td>
                    <td>
                      <Time value={a.created_date} />
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
