/** One webhook: edit it, rotate its secret (shown once), and its delivery history with redeliver. */
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import { del, get, patch, recordPath, request } from '../../api/client.ts';
import type { Webhook } from '../../api/admin-types.ts';
import { SecretBox } from '../../components/secret-box.tsx';
import { ConfirmDialog, EmptyState, ErrorMessage, Loading, Time } from '../../components/ui.tsx';
import { Deliveries } from './deliveries.tsx';
import { webhookBody, WebhookFields, webhookValues } from './form.tsx';
import { WebhookStatus } from './list.tsx';

function EditWebhook({ hook }: { hook: Webhook }) {
  const [values, setValues] = useState(() => webhookValues(hook));
  const [saved, setSaved] = useState(false);
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: () => patch(recordPath('webhook', hook.id), webhookBody(values)),
    onSuccess: async () => {
      setSaved(true);
      await client.invalidateQueries({ queryKey: ['webhook'] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    save.mutate();
  };
  return (
    <form className="inline-form group" onSubmit={submit} noValidate aria-labelledby="edit-title">
      <h2 id="edit-title">Settings</h2>
      <WebhookFields values={values} onChange={(v) => (setValues(v), setSaved(false))} error={save.error} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save changes'}
        </button>
        {saved && <span role="status">Saved.</span>}
      </div>
    </form>
  );
}

function RotateSecret({ hook }: { hook: Webhook }) {
  const [asking, setAsking] = useState(false);
  const [secret, setSecret] = useState<string | undefined>();
  const rotate = useMutation({
    mutationFn: () => request<{ secret: string }>('POST', `${recordPath('webhook', hook.id)}rotate-secret/`),
    onSuccess: (r) => setSecret(r.secret),
  });
  return (
    <section aria-labelledby="secret-title">
      <h2 id="secret-title">Signing secret</h2>
      {secret ? (
        <SecretBox title="The new signing secret" value={secret} onDone={() => setSecret(undefined)} />
      ) : (
        <>
          <p className="muted">The secret was shown once, when the webhook was made. A new one replaces it at once.</p>
          <button type="button" className="danger" onClick={() => setAsking(true)} disabled={rotate.isPending}>
            Rotate the secret…
          </button>
        </>
      )}
      <ErrorMessage error={rotate.error} />
      <ConfirmDialog
        open={asking}
        title="Rotate the signing secret?"
        confirmLabel="Make a new secret"
        onCancel={() => setAsking(false)}
        onConfirm={() => {
          setAsking(false);
          rotate.mutate();
        }}
      >
        <p>The current secret stops working at once: deliveries are signed with the new one, which your endpoint must then use.</p>
      </ConfirmDialog>
    </section>
  );
}

function DeleteWebhook({ hook }: { hook: Webhook }) {
  const [asking, setAsking] = useState(false);
  const navigate = useNavigate();
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => del(recordPath('webhook', hook.id)),
    onSuccess: async () => {
      client.removeQueries({ queryKey: ['webhook', 'one', hook.id] });
      await client.invalidateQueries({ queryKey: ['webhook'] });
      void navigate('/webhooks');
    },
  });
  return (
    <section aria-labelledby="delete-title">
      <h2 id="delete-title">Delete</h2>
      <button type="button" className="danger" onClick={() => setAsking(true)} disabled={remove.isPending}>
        Delete this webhook…
      </button>
      <ErrorMessage error={remove.error} />
      <ConfirmDialog
        open={asking}
        title="Delete this webhook?"
        confirmLabel="Delete the webhook"
        onCancel={() => setAsking(false)}
        onConfirm={() => {
          setAsking(false);
          remove.mutate();
        }}
      >
        <p>No further event is sent to {hook.url}, and its delivery history goes with it. To pause deliveries instead, switch it off.</p>
      </ConfirmDialog>
    </section>
  );
}

export function WebhookPage() {
  const id = Number(useParams().id);
  const hook = useQuery({ queryKey: ['webhook', 'one', id], queryFn: () => get<Webhook>(recordPath('webhook', id)) });
  if (hook.isPending) return <Loading />;
  if (!hook.data) {
    return (
      <EmptyState title="Webhook not found">
        <ErrorMessage error={hook.error} />
        <p>
          It does not exist, or it is not yours. <Link to="/webhooks">Back to the webhooks</Link>.
        </p>
      </EmptyState>
    );
  }
  const h = hook.data;
  return (
    <>
      <p className="crumbs">
        <Link to="/webhooks">Webhooks</Link> /
      </p>
      <div className="page-head title">
        <h1 className="break">{h.url}</h1>
        <WebhookStatus hook={h} />
      </div>
      {h.failing_since && (
        <p className="waiting">
          Failing since <Time value={h.failing_since} />: deliveries are retried; after a day of failures it is switched off.
        </p>
      )}
      <p className="muted">
        Created <Time value={h.created_date} /> · updated <Time value={h.updated_date} />
      </p>
      <EditWebhook hook={h} />
      <RotateSecret hook={h} />
      <Deliveries webhookId={h.id} />
      <DeleteWebhook hook={h} />
    </>
  );
}
