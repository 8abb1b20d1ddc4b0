/** Every account, a page at a time (admins only): who can sign in, their balance and rates. */
import { Link } from 'react-router';
import type { Account } from '../../api/admin-types.ts';
import { PagedResults, ResultsTable, useUrlPagedList } from '../../components/paged-list.tsx';
import { EmptyState, Time } from '../../components/ui.tsx';
import { formatMoney } from '../../format.ts';
import '../../components/admin.css';

export function AccountList() {
  const list = useUrlPagedList<Account>('accounts');
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
      <PagedResults
        list={list}
        empty={
          <EmptyState title="No user yet">
            <p>
              <Link to="/users/new">Create a user</Link> for each operator: they sign in here or call the API with their password or a token.
            </p>
          </EmptyState>
        }
      >
        {(rows) => (
          <ResultsTable
            caption={`Users, page ${list.page}`}
            head={
              <>
                <th scope="col">Username</th>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Account</th>
                <th scope="col">Balance</th>
                <th scope="col">Call rate</th>
                <th scope="col">SMS rate</th>
                <th scope="col">Created</th>
              </>
            }
          >
            {rows.map((a) => (
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
          </ResultsTable>
        )}
      </PagedResults>
    </>
  );
}
