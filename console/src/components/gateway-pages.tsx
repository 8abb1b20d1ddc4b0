/**
 * The gateway pages, for both kinds (/gateways → /rest-api/gateway/, /sms-gateways →
 * /rest-api/sms-gateway/): the list, and for admins a form to create and edit one with its
 * driver's settings. Anyone else reads only the names the API shows them (contract §3).
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, Route, Routes, useNavigate, useParams } from 'react-router';
import { ApiError, get, listPath, patch, post, recordPath } from '../api/client.ts';
import { useUser } from '../api/session.tsx';
import { GatewayStatus, type Gateway } from '../api/admin-types.ts';
import { parseSettingsJson, SimulatorSettings, simulatorSettings, simulatorValues } from './gateway-settings.tsx';
import { PagedResults, ResultsTable, useUrlPagedList } from './paged-list.tsx';
import { EmptyState, ErrorMessage, Field, Loading, Time } from './ui.tsx';
import './admin.css';

export interface GatewayKind {
  kind: 'voice' | 'sms';
  resource: 'gateway' | 'sms-gateway';
  path: string;
  title: string;
  noun: string;
  /** The noun in a sentence: `gateways`, `SMS gateways`. */
  plural: string;
  /** The drivers the server knows (src/drivers/<kind>/index.ts), the default first. */
  drivers: string[];
  what: string;
}

const VOICE_FIELDS: [keyof Gateway & string, string, string][] = [
  ['gateways', 'Dial-string prefix', 'e.g. sofia/gateway/carrier/ (FreeSWITCH).'],
  ['addprefix', 'Add prefix', 'Put before every number dialled.'],
  ['removeprefix', 'Remove prefix', 'Taken off the start of every number.'],
  ['originate_dial_string', 'Originate dial string', 'Extra channel variables (FreeSWITCH).'],
  ['maximum_call', 'Calls at once', 'Empty: no cap.'],
];

function List({ k }: { k: GatewayKind }) {
  const { is_admin } = useUser();
  const list = useUrlPagedList<Gateway>(k.resource);
  return (
    <>
      <div className="page-head">
        <h1>{k.title}</h1>
        {is_admin && (
          <Link className="button primary" to={`${k.path}/new`}>
            New {k.noun}
          </Link>
        )}
      </div>
      <p className="muted">{k.what}</p>
      <PagedResults
        list={list}
        empty={
          <EmptyState title={`No ${k.noun} yet`}>
            {is_admin ? (
              <p>
                Campaigns need one to reach anyone. <Link to={`${k.path}/new`}>Create the first {k.noun}</Link>; the simulator needs no carrier.
              </p>
            ) : (
              <p>Only an administrator can add one: ask yours.</p>
            )}
          </EmptyState>
        }
      >
        {(rows) => (
          <>
            {!is_admin && <p className="muted">Administrators configure gateways; you can pick any of these in your campaigns.</p>}
            <ResultsTable
              caption={k.title}
              head={
                <>
                  <th scope="col">Name</th>
                  {is_admin && (
                    <>
                      <th scope="col">Driver</th>
                      <th scope="col">Status</th>
                      <th scope="col">Updated</th>
                    </>
                  )}
                </>
              }
            >
              {rows.map((g) => (
                <tr key={g.id}>
                  <td>{is_admin ? <Link to={`${k.path}/${g.id}`}>{g.name}</Link> : g.name}</td>
                  {is_admin && (
                    <>
                      <td>{g.driver}</td>
                      <td>
                        <span className={`status ${g.status === GatewayStatus.Active ? 'status-1' : 'status-3'}`}>
                          {g.status === GatewayStatus.Active ? 'Active' : 'Inactive'}
                        </span>
                      </td>
                      <td>
                        <Time value={g.updated_date} />
                      </td>
                    </>
                  )}
                </tr>
              ))}
            </ResultsTable>
          </>
        )}
      </PagedResults>
    </>
  );
}

function GatewayForm({ k, gateway }: { k: GatewayKind; gateway?: Gateway }) {
  const isNew = !gateway;
  const [v, setV] = useState<Record<string, string>>(() => ({
    name: gateway?.name ?? '',
    status: String(gateway?.status ?? GatewayStatus.Active),
    description: gateway?.description ?? '',
    driver: gateway?.driver ?? k.drivers[0] ?? 'simulator',
    ...Object.fromEntries(VOICE_FIELDS.map(([f]) => [f, gateway?.[f] == null ? '' : String(gateway[f])])),
  }));
  const [sim, setSim] = useState(() => simulatorValues(k.kind, gateway?.settings));
  const [json, setJson] = useState(() => JSON.stringify(gateway?.settings ?? {}, null, 2));
  const [local, setLocal] = useState<Record<string, string>>({});
  const navigate = useNavigate();
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: async (body: Record<string, unknown>) => {
      if (isNew) return (await post<Gateway>(listPath(k.resource), body)).id;
      await patch(recordPath(k.resource, gateway.id), body);
      return gateway.id;
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: [k.resource] });
      void navigate(k.path);
    },
  });
  const simulator = v.driver === 'simulator';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    let settings: Record<string, unknown> | undefined;
    if (simulator) {
      const r = simulatorSettings(k.kind, sim);
      setLocal(r.problems);
      // Keys the small form does not show are kept as they were.
      settings = r.settings && { ...(gateway?.driver === 'simulator' ? gateway.settings : {}), ...r.settings };
      if (r.settings) for (const key of Object.keys(sim)) if (!(sim[key] ?? '').trim()) delete settings?.[key];
    } else {
      const r = parseSettingsJson(json);
      setLocal(r.problem ? { settings: r.problem } : {});
      settings = r.settings;
    }
    if (!settings) return;
    const body: Record<string, unknown> = { name: v.name, status: Number(v.status), description: v.description, driver: v.driver, settings };
    if (k.kind === 'voice') {
      for (const [f] of VOICE_FIELDS) body[f] = f === 'maximum_call' ? (v[f] ? v[f] : null) : v[f];
    }
    save.mutate(body);
  };
  const apiErrors = save.error instanceof ApiError ? save.error.fields : {};
  const errs = (name: string) => apiErrors[name];
  const text = (name: string, label: string, hint?: string) => (
    <Field key={name} label={label} hint={hint} errors={errs(name)}>
      {(p) => <input {...p} name={name} type="text" value={v[name] ?? ''} onChange={(e) => setV({ ...v, [name]: e.target.value })} />}
    </Field>
  );
  return (
    <form className="campaign-form" onSubmit={submit} noValidate>
      <p className="crumbs">
        <Link to={k.path}>{k.title}</Link> /
      </p>
      <h1>{isNew ? `New ${k.noun}` : `Edit ${gateway.name}`}</h1>
      {save.error ? (
        <div role="alert" className="error-banner">
          {save.error instanceof ApiError && Object.keys(save.error.fields).length ? `The ${k.noun} was not saved: see the messages beside the fields.` : ''}
          {save.error instanceof ApiError ? (save.error.detail ?? '') : String(save.error)}
        </div>
      ) : null}
      <fieldset className="group">
        <legend>Gateway</legend>
        <div className="group-fields">
          {text('name', 'Name')}
          <Field label="Status" errors={errs('status')}>
            {(p) => (
              <select {...p} name="status" value={v.status} onChange={(e) => setV({ ...v, status: e.target.value })}>
                <option value={GatewayStatus.Active}>Active</option>
                <option value={GatewayStatus.Inactive}>Inactive: campaigns using it wait</option>
              </select>
            )}
          </Field>
          <Field label="Driver" hint={`Known: ${k.drivers.join(', ')}.`} errors={errs('driver')}>
            {(p) => (
              <select {...p} name="driver" value={v.driver} onChange={(e) => setV({ ...v, driver: e.target.value })}>
                {[...new Set([...k.drivers, v.driver ?? ''])].filter(Boolean).map((d) => (
                  <option key={d}>{d}</option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Description" errors={errs('description')}>
            {(p) => <textarea {...p} name="description" rows={2} value={v.description} onChange={(e) => setV({ ...v, description: e.target.value })} />}
          </Field>
        </div>
      </fieldset>
      {k.kind === 'voice' && (
        <fieldset className="group">
          <legend>Dialing</legend>
          <div className="group-fields">{VOICE_FIELDS.map(([f, label, hint]) => text(f, label, hint))}</div>
        </fieldset>
      )}
      <fieldset className="group">
        <legend>Driver settings</legend>
        {errs('settings') && <p className="field-error">{errs('settings')?.join(' ')}</p>}
        {simulator ? (
          <>
            <p className="muted">Leave a box empty for the driver’s default.</p>
            <SimulatorSettings kind={k.kind} values={sim} onChange={(key, value) => setSim({ ...sim, [key]: value })} errors={local} />
          </>
        ) : (
          <Field
            label="Settings (JSON)"
            hint="A JSON object; passwords, secrets and tokens read back as ******** and are kept when sent back so."
            errors={local.settings ? [local.settings] : undefined}
          >
            {(p) => <textarea {...p} name="settings" className="mono" rows={10} value={json} onChange={(e) => setJson(e.target.value)} spellCheck={false} />}
          </Field>
        )}
      </fieldset>
      {gateway?.report_url && (
        <fieldset className="group">
          <legend>Callback addresses</legend>
          <p className="muted">Give these to the SMS gateway: they hold this gateway’s secret.</p>
          <dl className="facts">
            <dt>Delivery reports</dt>
            <dd>
              <code className="break">{gateway.report_url}</code>
            </dd>
            <dt>Inbound messages</dt>
            <dd>
              <code className="break">{gateway.inbound_url}</code>
            </dd>
          </dl>
        </fieldset>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : isNew ? `Create ${k.noun}` : 'Save changes'}
        </button>
        <Link to={k.path}>Cancel</Link>
      </div>
    </form>
  );
}

function Edit({ k }: { k: GatewayKind }) {
  const id = Number(useParams().id);
  const one = useQuery({ queryKey: [k.resource, 'one', id], queryFn: () => get<Gateway>(recordPath(k.resource, id)) });
  if (one.isPending) return <Loading />;
  if (!one.data) return <ErrorMessage error={one.error} />;
  return <GatewayForm k={k} gateway={one.data} />;
}

export function GatewayPages({ k }: { k: GatewayKind }) {
  const { is_admin } = useUser();
  return (
    <Routes>
      <Route index element={<List k={k} />} />
      {is_admin && <Route path="new" element={<GatewayForm k={k} />} />}
      {is_admin && <Route path=":id" element={<Edit k={k} />} />}
      <Route
        path="*"
        element={
          <EmptyState title={`Only administrators configure ${k.plural}`}>
            <p>
              You can see their names and choose them in your campaigns. <Link to={k.path}>Back to the {k.plural}</Link>.
            </p>
          </EmptyState>
        }
      />
    </Routes>
  );
}
