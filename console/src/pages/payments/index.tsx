/**
 * Payments (admins only, /rest-api/payment/): add a payment to a user (it raises their balance
 * in the same transaction) and the payments made, newest last as the API lists them.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { ApiError, getAll, idOf, listPath, post } from '../../api/client.ts';
import type { Account, Payment } from '../../api/admin-types.ts';
import { PagedResults, ResultsTable, useUrlPagedList } from '../../components/paged-list.tsx';
import { EmptyState, ErrorMessage, Field, Time } from '../../components/ui.tsx';
import { formatMoney } from '../../format.ts';
import '../../components/admin.css';

function useAccounts() {
  return useQuery({ queryKey: ['accounts', 'all'], queryFn: () => getAll<Account>(listPath('accounts', { page_size: 1000 })) });
}

function AddPayment({ accounts, preselected }: { accounts: Account[]; preselected: string }) {
  const [user, setUser] = useState(preselected);
  const [amount, setAmount] = useState('');
  const [description, setDescription] = useState('');
  const [done, setDone] = useState<string | undefined>();
  const client = useQueryClient();
  const add = useMutation({
    mutationFn: () => post<Payment>(listPath('payment'), { user, amount, description }),
    onSuccess: async (p) => {
      const who = accounts.find((a) => String(a.id) === user)?.username ?? 'the user';
      setDone(`${formatMoney(p.amount)} added to ${who}’s balance.`);
      setAmount('');
      setDescription('');
      await Promise.all(['payment', 'accounts', 'users'].map((r) => client.invalidateQueries({ queryKey: [r] })));
    },
  });
  const errs = add.error instanceof ApiError ? add.error.fields : {};
  const chosen = accounts.find((a) => String(a.id) === user);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(undefined);
    add.mutate();
  };
  return (
    <form className="group narrow-form" onSubmit={submit} noValidate aria-labelledby="add-payment">
      <h2 id="add-payment">Add a payment</h2>
      <Field label="User" errors={errs.user}>
        {(p) => (
          <select {...p} name="user" value={user} onChange={(e) => setUser(e.target.value)}>
            <option value="">Choose…</option>
            {accounts.map((a) => (
              <option key={a.id} value={a.id}>
                {a.username}
              </option>
            ))}
          </select>
        )}
      </Field>
      {chosen && (
        <p className="muted" data-testid="chosen-balance">
          Balance now: <strong>{formatMoney(chosen.balance)}</strong>
        </p>
      )}
      <Field label="Amount" hint="Added to the balance at once." errors={errs.amount}>
        {(p) => <input {...p} name="amount" type="number" inputMode="decimal" min="0" step="0.00001" value={amount} onChange={(e) => setAmount(e.target.value)} />}
      </Field>
      <Field label="Description" errors={errs.description}>
        {(p) => <input {...p} name="description" type="text" value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      {add.error && !Object.keys(errs).length ? <ErrorMessage error={add.error} /> : null}
      {done && (
        <p role="status" className="ok-banner">
          {done}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={add.isPending}>
          {add.isPending ? 'Adding…' : 'Add payment'}
        </button>
      </div>
    </form>
  );
}

export default function Payments() {
  const [search] = useSearchParams();
  const accounts = useAccounts();
  const list = useUrlPagedList<Payment>('payment');
  const names = new Map((accounts.data ?? []).map((a) => [a.id, a.username]));
  return (
    <>
      <div className="page-head">
        <h1>Payments</h1>
        <Link className="button" to="/users">
          Users
        </Link>
      </div>
      <ErrorMessage error={accounts.error} />
      {accounts.data && <AddPayment accounts={accounts.data} preselected={search.get('user') ?? ''} />}
      <h2>Payments made</h2>
      <PagedResults
        list={list}
        empty={
          <EmptyState title="No payment yet">
            <p>A payment raises a user’s balance, which calls and messages are charged to. Add one with the form above.</p>
          </EmptyState>
        }
      >
        {(rows) => (
          <ResultsTable
            caption={`Payments, page ${list.page}`}
            head={
              <>
                <th scope="col">Date</th>
                <th scope="col">User</th>
                <th scope="col">Amount</th>
                <th scope="col">Description</th>
              </>
            }
          >
            {rows.map((p, i) => {
              const id = idOf(p.user);
              return (
                <tr key={`${p.created_date}-${i}`}>
                  <td>
                    <Time value={p.created_date} />
                  </td>
                  <td>{id ? <Link to={`/users/${id}`}>{names.get(id) ?? `User ${id}`}</Link> : p.user}</td>
                  <td className="num">{formatMoney(p.amount)}</td>
                  <td className="wrap">{p.description || '–'}</td>
                </tr>
              );
            })}
          </ResultsTable>
        )}
      </PagedResults>
    </>
  );
}
