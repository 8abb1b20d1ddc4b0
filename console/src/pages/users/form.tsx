/**
 * Create or edit an account (admins only). Deactivating (is_active off) refuses the user's
 * password and tokens at once and holds their campaigns; accounts are never deleted (they own
 * campaigns, CDRs and payments). The API's messages (unique username, the last active admin)
 * are shown beside their fields.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError, get, listPath, patch, post, recordPath } from '../../api/client.ts';
import type { Account } from '../../api/admin-types.ts';
import { ErrorMessage, Field, Loading, Time } from '../../components/ui.tsx';
import { formatMoney } from '../../format.ts';
import '../../components/admin.css';

type Values = Record<string, string | boolean>;

const TEXT: [string, string, string, string?][] = [
  ['username', 'Username', 'text'],
  ['first_name', 'First name', 'text'],
  ['last_name', 'Last name', 'text'],
  ['email', 'E-mail', 'email'],
];
const MONEY: [string, string, string?][] = [
  ['call_rate', 'Call rate', 'Charged per billed minute of a call.'],
  ['sms_rate', 'SMS rate', 'Charged per message part sent.'],
  ['balance_low_threshold', 'Low-balance threshold', 'A balance falling below it writes a balance.low event; empty: none.'],
];

function initial(a?: Account): Values {
  return {
    username: a?.username ?? '',
    password: '',
    first_name: a?.first_name ?? '',
    last_name: a?.last_name ?? '',
    email: a?.email ?? '',
    is_admin: a?.is_admin ?? false,
    is_active: a?.is_active ?? true,
    balance: a ? String(a.balance) : '0',
    call_rate: a ? String(a.call_rate) : '0',
    sms_rate: a ? String(a.sms_rate) : '0',
    balance_low_threshold: a?.balance_low_threshold == null ? '' : String(a.balance_low_threshold),
  };
}

export function AccountForm({ account }: { account?: Account }) {
  const isNew = !account;
  const [start] = useState(() => initial(account));
  const [v, setV] = useState(start);
  const [edited, setEdited] = useState<Set<string>>(new Set());
  const navigate = useNavigate();
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: async () => {
      const body: Record<string, unknown> = {};
      for (const [k, value] of Object.entries(v)) {
        if (!isNew && value === start[k]) continue;
        if (k === 'password' && value === '') continue;
        // On edit, the balance is changed by payments (recorded), not here.
        if (k === 'balance' && !isNew) continue;
        body[k] = k === 'balance_low_threshold' && value === '' ? null : value;
      }
      if (isNew) return (await post<Account>(listPath('accounts'), body)).id;
      if (Object.keys(body).length) await patch(recordPath('accounts', account.id), body);
      return account.id;
    },
    onSuccess: async () => {
      await Promise.all([client.invalidateQueries({ queryKey: ['accounts'] }), client.invalidateQueries({ queryKey: ['users'] })]);
      void navigate('/users');
    },
  });
  const fieldErrors = save.error instanceof ApiError ? save.error.fields : {};
  const errs = (k: string) => (edited.has(k) ? undefined : fieldErrors[k]);
  const set = (k: string, value: string | boolean) => {
    setV((old) => ({ ...old, [k]: value }));
    setEdited((old) => new Set(old).add(k));
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setEdited(new Set());
    save.mutate();
  };
  const input = (k: string, label: string, type: string, hint?: string) => (
    <Field key={k} label={label} hint={hint} errors={errs(k)}>
      {(p) => (
        <input
          {...p}
          name={k}
          type={type}
          inputMode={type === 'number' ? 'decimal' : undefined}
          step={type === 'number' ? '0.00001' : undefined}
          autoComplete={k === 'password' ? 'new-password' : 'off'}
          value={v[k] as string}
          onChange={(e) => set(k, e.target.value)}
        />
      )}
    </Field>
  );
  const check = (k: string, label: string, hint: string) => (
    <div className={`field check${errs(k) ? ' field-invalid' : ''}`}>
      <label>
        <input type="checkbox" name={k} checked={v[k] as boolean} onChange={(e) => set(k, e.target.checked)} /> {label}
      </label>
      <small className="hint">{hint}</small>
      {errs(k) && <p className="field-error">{errs(k)?.join(' ')}</p>}
    </div>
  );
  return (
    <form className="campaign-form" onSubmit={submit} noValidate>
      <p className="crumbs">
        <Link to="/users">Users</Link> /
      </p>
      <h1>{isNew ? 'New user' : `Edit ${account.username}`}</h1>
      {save.error ? (
        <div role="alert" className="error-banner">
          {save.error instanceof ApiError && Object.keys(save.error.fields).length ? 'The user was not saved: see the messages beside the fields. ' : ''}
          {save.error instanceof ApiError ? (save.error.detail ?? '') : <ErrorMessage error={save.error} />}
        </div>
      ) : null}
      <fieldset className="group">
        <legend>Who</legend>
        <div className="group-fields">
          {TEXT.map(([k, label, type]) => input(k, label, type))}
          {input('password', isNew ? 'Password' : 'New password', 'password', isNew ? undefined : 'Leave empty to keep the current one.')}
        </div>
      </fieldset>
      <fieldset className="group">
        <legend>Access</legend>
        <div className="group-fields">
          {check('is_admin', 'Administrator', 'Sees and changes every record, manages users, gateways and payments.')}
          {check('is_active', 'Active', 'Off: the password and tokens are refused at once and the user’s campaigns wait.')}
        </div>
      </fieldset>
      <fieldset className="group">
        <legend>Money</legend>
        <div className="group-fields">
          {isNew ? (
            input('balance', 'Opening balance', 'number', 'Later, add payments: they are recorded.')
          ) : (
            <div className="field">
              <span className="label-like">Balance</span>
              <strong data-testid="balance">{formatMoney(account.balance)}</strong>
              <Link to={`/payments?user=${account.id}`}>Add a payment</Link>
            </div>
          )}
          {MONEY.map(([k, label, hint]) => input(k, label, 'number', hint))}
        </div>
      </fieldset>
      {account && (
        <p className="muted">
          Created <Time value={account.created_date} /> · updated <Time value={account.updated_date} />
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : isNew ? 'Create user' : 'Save changes'}
        </button>
        <Link to="/users">Cancel</Link>
      </div>
    </form>
  );
}

export function AccountEdit() {
  const id = Number(useParams().id);
  const one = useQuery({ queryKey: ['accounts', 'one', id], queryFn: () => get<Account>(recordPath('accounts', id)) });
  if (one.isPending) return <Loading />;
  if (!one.data) return <ErrorMessage error={one.error} />;
  return <AccountForm account={one.data} />;
}
