/**
 * Create or edit an account (admins only). Deactivating (is_active off) refuses the user's
 * password and tokens at once and holds their campaigns; accounts are never deleted (they own
 * campaigns, CDRs and payments). The API's messages (unique username, the last active admin)
 * are shown beside their fields. The calling rules (contact caps, legal calling hours, the
 * country numbers are read in, how long recordings are kept) are the account's own, on top of
 * the instance's: each part left empty is off.
 */
import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { ApiError, get, listPath, patch, post, recordPath } from '../../api/client.ts';
import type { Account, ContactCaps } from '../../api/admin-types.ts';
import { ErrorMessage, Field, Loading, Time } from '../../components/ui.tsx';
import { formatMoney } from '../../format.ts';
// The server's preset itself (a module without imports), so the button sets what "regulation_f" means.
import { REGULATION_F } from '../../../../src/campaign/contact-policy.ts';
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

/** The contact caps' parts, each a form value `caps_<part>`; empty: that part is off. */
const CAPS: [keyof ContactCaps, string, string][] = [
  ['attempts', 'Attempts', 'At most this many calls to one number…'],
  ['window_days', 'In days', '…in this many days (rolling); goes with attempts.'],
  ['daily', 'Attempts a day', 'At most this many calls to one number in 24 hours.'],
  ['quiet_days', 'Quiet days', 'No call to a number for this many days after a conversation.'],
];

/** Form values that make up one API field: the field's message is hidden once any of them is edited. */
const PART_OF: Record<string, string> = {
  ...Object.fromEntries(CAPS.map(([part]) => [`caps_${part}`, 'contact_caps'])),
  hours_start: 'calling_hours',
  hours_end: 'calling_hours',
};

const text = (v: unknown) => (v == null ? '' : String(v));

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
    ...Object.fromEntries(CAPS.map(([part]) => [`caps_${part}`, text(a?.contact_caps?.[part])])),
    hours_start: a?.calling_hours?.start ?? '',
    hours_end: a?.calling_hours?.end ?? '',
    default_country: a?.default_country ?? '',
    recording_retention_days: text(a?.recording_retention_days),
  };
}

/** The calling rules' part of the request: each API field whose form values changed (all of them for a new account). */
function rulesBody(v: Values, start: Values, isNew: boolean): Record<string, unknown> {
  const changed = (keys: string[]) => isNew || keys.some((k) => v[k] !== start[k]);
  const body: Record<string, unknown> = {};
  const capKeys = CAPS.map(([part]) => `caps_${part}`);
  if (changed(capKeys)) {
    // Every part empty: no caps (null); else each part a number, or null when empty.
    body.contact_caps = capKeys.every((k) => v[k] === '') ? null : Object.fromEntries(CAPS.map(([part]) => [part, v[`caps_${part}`] === '' ? null : Number(v[`caps_${part}`])]));
  }
  if (changed(['hours_start', 'hours_end'])) body.calling_hours = v.hours_start === '' && v.hours_end === '' ? null : { start: v.hours_start, end: v.hours_end };
  if (changed(['default_country'])) body.default_country = v.default_country === '' ? null : (v.default_country as string).trim().toUpperCase();
  if (changed(['recording_retention_days'])) body.recording_retention_days = v.recording_retention_days === '' ? null : Number(v.recording_retention_days);
  return body;
}
const RULE_KEYS = new Set(['default_country', 'recording_retention_days', ...Object.keys(PART_OF)]);

export function AccountForm({ account }: { account?: Account }) {
  const isNew = !account;
  const [start] = useState(() => initial(account));
  const [v, setV] = useState(start);
  const [edited, setEdited] = useState<Set<string>>(new Set());
  const navigate = useNavigate();
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: async () => {
      const body: Record<string, unknown> = rulesBody(v, start, isNew);
      for (const [k, value] of Object.entries(v)) {
        if (RULE_KEYS.has(k) || (!isNew && value === start[k])) continue;
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
    setEdited((old) => new Set(old).add(k).add(PART_OF[k] ?? k));
  };
  /** A fieldset of form values that make up one API field, its message under them. */
  const parts = (field: string, legend: string, hint: string, children: ReactNode, extra?: ReactNode) => (
    <fieldset className={`checklist${errs(field) ? ' field-invalid' : ''}`}>
      <legend>{legend}</legend>
      <small className="hint">{hint}</small>
      <div className="group-fields">{children}</div>
      {extra}
      {errs(field) && <p className="field-error">{errs(field)?.join(' ')}</p>}
    </fieldset>
  );
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
          step={type === 'number' ? (k.startsWith('caps_') || k === 'recording_retention_days' ? '1' : '0.00001') : undefined}
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
      <fieldset className="group">
        <legend>Calling rules</legend>
        <div className="group-fields">
          {parts(
            'contact_caps',
            'Contact caps',
            'Counted across all of this user’s campaigns, per number. Empty: no cap.',
            CAPS.map(([part, label, hint]) => input(`caps_${part}`, label, 'number', hint)),
            <button type="button" onClick={() => CAPS.forEach(([part]) => set(`caps_${part}`, text(REGULATION_F[part])))}>
              Use Regulation F (7 calls in 7 days, 7 quiet days)
            </button>,
          )}
          {parts(
            'calling_hours',
            'Legal calling hours',
            'Read in each contact’s own time zone, on top of every campaign’s window; HH:MM, the end may be 24:00. Empty: none.',
            <>
              {input('hours_start', 'From', 'text')}
              {input('hours_end', 'Until', 'text')}
            </>,
          )}
          {input('default_country', 'Country of numbers without +', 'text', 'Two letters, e.g. US. Empty: the instance’s DEFAULT_COUNTRY.')}
          {input('recording_retention_days', 'Keep recordings (days)', 'number', 'Older call recordings are deleted. Empty: kept.')}
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
