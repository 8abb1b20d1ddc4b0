/**
 * A webhook's fields (url, events, description, active, ordered, batch_size) for create and edit. Events: the known
 * types as checkboxes, and patterns (`call.*`) in a box; none at all means every event.
 * Creating shows the secret once, in a "copy it now" box.
 */
import { useState, type FormEvent, type ReactNode } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { ApiError, listPath, post } from '../../api/client.ts';
import type { Webhook } from '../../api/admin-types.ts';
import { EVENT_TYPES as KNOWN } from '../../api/events.tsx';
import { SecretBox } from '../../components/secret-box.tsx';
import { ErrorMessage, Field } from '../../components/ui.tsx';

export interface WebhookValues {
  url: string;
  events: string[];
  patterns: string;
  description: string;
  active: boolean;
  ordered: boolean;
  /** As typed: the server says what is wrong with it. */
  batchSize: string;
}

export function webhookValues(h?: Webhook): WebhookValues {
  const events = h?.events ?? [];
  return {
    url: h?.url ?? '',
    events: events.filter((e) => KNOWN.includes(e)),
    patterns: events.filter((e) => !KNOWN.includes(e)).join(', '),
    description: h?.description ?? '',
    active: h?.active ?? true,
    ordered: h?.ordered ?? true,
    batchSize: String(h?.batch_size ?? 1),
  };
}

export function webhookBody(v: WebhookValues) {
  const patterns = v.patterns.split(',').map((s) => s.trim()).filter(Boolean);
  return {
    url: v.url.trim(),
    events: [...v.events, ...patterns],
    description: v.description,
    active: v.active,
    ordered: v.ordered,
    batch_size: v.batchSize.trim(),
  };
}

export function WebhookFields({ values: v, onChange, error }: { values: WebhookValues; onChange: (v: WebhookValues) => void; error: unknown }) {
  const errs = error instanceof ApiError ? error.fields : {};
  return (
    <>
      {error ? (
        <div role="alert" className="error-banner">
          {error instanceof ApiError && Object.keys(errs).length ? 'Not saved: see the messages beside the fields. ' : ''}
          {error instanceof ApiError ? (error.detail ?? '') : <ErrorMessage error={error} />}
        </div>
      ) : null}
      <Field label="Endpoint URL" hint="http or https; each event is POSTed here as JSON." errors={errs.url}>
        {(p) => <input {...p} name="url" type="url" inputMode="url" value={v.url} onChange={(e) => onChange({ ...v, url: e.target.value })} />}
      </Field>
      <fieldset className={`checklist${errs.events ? ' field-invalid' : ''}`}>
        <legend>Events</legend>
        <small className="hint">None chosen: every event.</small>
        <div className="events-list">
          {KNOWN.map((t) => (
            <label key={t} className="check">
              <input
                type="checkbox"
                name="events"
                value={t}
                checked={v.events.includes(t)}
                onChange={(e) => onChange({ ...v, events: e.target.checked ? [...v.events, t] : v.events.filter((x) => x !== t) })}
              />
              {t}
            </label>
          ))}
        </div>
      </fieldset>
      <Field label="Patterns" hint="Comma-separated, such as call.*, sms.* (added to the events above)." errors={errs.events}>
        {(p) => <input {...p} name="patterns" type="text" value={v.patterns} onChange={(e) => onChange({ ...v, patterns: e.target.value })} />}
      </Field>
      <Field label="Description" errors={errs.description}>
        {(p) => <input {...p} name="description" type="text" value={v.description} onChange={(e) => onChange({ ...v, description: e.target.value })} />}
      </Field>
      <div className={`field check${errs.active ? ' field-invalid' : ''}`}>
        <label>
          <input type="checkbox" name="active" checked={v.active} onChange={(e) => onChange({ ...v, active: e.target.checked })} /> Active
        </label>
        <small className="hint">Off: no delivery is sent. Switching it on again restarts one that failed for a day.</small>
      </div>
      <div className={`field check${errs.ordered ? ' field-invalid' : ''}`}>
        <label>
          <input type="checkbox" name="ordered" checked={v.ordered} onChange={(e) => onChange({ ...v, ordered: e.target.checked })} /> In order
        </label>
        <small className="hint">On: one delivery at a time, in the order of the events. Off: up to 16 at a time (sort by the events’ ids if the order matters).</small>
      </div>
      <Field label="Events per delivery" hint="1: each event on its own, as a JSON object. 2–500: a JSON array of up to that many events." errors={errs.batch_size}>
        {(p) => <input {...p} name="batch_size" type="text" inputMode="numeric" value={v.batchSize} onChange={(e) => onChange({ ...v, batchSize: e.target.value })} />}
      </Field>
    </>
  );
}

export function NewWebhook() {
  const [values, setValues] = useState(() => webhookValues());
  const [created, setCreated] = useState<(Webhook & { secret: string }) | undefined>();
  const navigate = useNavigate();
  const client = useQueryClient();
  const create = useMutation({
    mutationFn: () => post<Webhook & { secret: string }>(listPath('webhook'), webhookBody(values)),
    onSuccess: async (h) => {
      setCreated(h);
      await client.invalidateQueries({ queryKey: ['webhook'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  let body: ReactNode;
  if (created) {
    body = (
      <SecretBox title="The webhook's signing secret" value={created.secret} onDone={() => void navigate(`/webhooks/${created.id}`)}>
        <p className="muted">
          Your endpoint checks each delivery’s <code>Dialer-Signature</code> with it (README, “Events and webhooks”).
        </p>
      </SecretBox>
    );
  } else {
    body = (
      <form className="inline-form" onSubmit={submit} noValidate>
        <WebhookFields values={values} onChange={setValues} error={create.error} />
        <div className="actions">
          <button type="submit" className="primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create webhook'}
          </button>
          <Link to="/webhooks">Cancel</Link>
        </div>
      </form>
    );
  }
  return (
    <>
      <p className="crumbs">
        <Link to="/webhooks">Webhooks</Link> /
      </p>
      <h1>New webhook</h1>
      {body}
    </>
  );
}
