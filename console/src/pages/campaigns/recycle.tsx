/**
 * "Call again" on a voice campaign's page, "Send again" on an SMS campaign's: POST
 * /rest-api/campaigns/<id>/recycle/ (issue 16) or /rest-api/sms-campaigns/<id>/recycle/ puts the
 * subscribers that ended in the chosen statuses (and, if any are ticked, whose last call ended with
 * one of the chosen dispositions, or whose last message has one of the chosen statuses; or last
 * tried before a date) back to pending, their attempts counted from zero. Shown while the campaign
 * can still dial or send (not ended, not aborted: the API answers 409 then). The API's messages go
 * under the part they name.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, post, recordPath } from '../../api/client.ts';
import { DISPOSITIONS, FINAL_SUBSCRIBER_STATUSES, MESSAGE_STATUSES, SUBSCRIBER_LABELS, SUBSCRIBER_STATUS } from '../../campaign-words.ts';
import { CheckboxGroup, ErrorMessage, Field } from '../../components/ui.tsx';
import { formatInteger, fromLocalInput } from '../../format.ts';

/** The final subscriber statuses (contract §4) that can be recycled, named as the campaign page names them. */
const LABEL = Object.fromEntries(SUBSCRIBER_LABELS);
const STATUSES = FINAL_SUBSCRIBER_STATUSES.map((name) => [SUBSCRIBER_STATUS[name], LABEL[name]] as const);
/** An SMS subscriber's final statuses (contract §4: 5 is COMPLETE, the message sent). */
const SMS_STATUSES = [
  [4, LABEL.fail],
  [5, LABEL.complete],
  [7, LABEL.not_authorized],
  [3, LABEL.abort],
] as const;
/** The statuses a sent message ends in: every one but 'unsent'. */
const ENDED_MESSAGE_STATUSES = MESSAGE_STATUSES.filter(([status]) => status !== 'unsent');

/** What the form says and sends for each kind. */
const KINDS = {
  voice: {
    resource: 'campaigns',
    title: 'Call again',
    intro: 'Subscribers that ended as chosen go back to pending, their attempts counted from zero, and are called again while the campaign runs.',
    statuses: STATUSES,
    outcome: { name: 'dispositions', legend: 'Last call', options: DISPOSITIONS },
    before: 'Last called before',
  },
  sms: {
    resource: 'sms-campaigns',
    title: 'Send again',
    intro: 'Subscribers that ended as chosen go back to pending, their attempts counted from zero, and are sent the text again while the campaign runs (each message is charged).',
    statuses: SMS_STATUSES,
    outcome: { name: 'message_statuses', legend: 'Last message', options: ENDED_MESSAGE_STATUSES },
    before: 'Last sent before',
  },
} as const;

export function RecycleSubscribers({ campaignId, kind = 'voice' }: { campaignId: number; kind?: keyof typeof KINDS }) {
  const k = KINDS[kind];
  const [statuses, setStatuses] = useState<number[]>([SUBSCRIBER_STATUS.fail]);
  const [outcomes, setOutcomes] = useState<string[]>([]);
  const [before, setBefore] = useState('');
  const client = useQueryClient();
  const recycle = useMutation({
    mutationFn: () =>
      post<{ recycled: number }>(`${recordPath(k.resource, campaignId)}recycle/`, {
        // Nothing ticked is sent as an empty list, for the API to say it may not be empty.
        statuses,
        ...(outcomes.length ? { [k.outcome.name]: outcomes } : {}),
        ...(before ? { last_attempt_before: fromLocalInput(before) ?? before } : {}),
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: [k.resource] }),
  });
  const fields = recycle.error instanceof ApiError ? recycle.error.fields : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    recycle.mutate();
  };
  return (
    <section aria-labelledby="recycle-title">
      <h2 id="recycle-title">{k.title}</h2>
      <form className="campaign-form" onSubmit={submit} noValidate aria-label={k.title}>
        <p className="muted">{k.intro}</p>
        <CheckboxGroup legend="Ended as" hint="At least one." options={k.statuses} chosen={statuses} onChange={setStatuses} errors={fields.statuses} />
        <CheckboxGroup legend={k.outcome.legend} hint="None ticked: any." options={k.outcome.options} chosen={outcomes} onChange={setOutcomes} errors={fields[k.outcome.name]} />
        <div className="group-fields">
          <Field label={k.before} hint="In your browser’s time zone. Empty: any time." errors={fields.last_attempt_before}>
            {(p) => <input {...p} type="datetime-local" value={before} onChange={(e) => setBefore(e.target.value)} />}
          </Field>
        </div>
        <div className="actions">
          <button type="submit" disabled={recycle.isPending}>
            {recycle.isPending ? 'Putting them back…' : 'Put them back in the queue'}
          </button>
        </div>
        {recycle.data && (
          <p role="status">
            {formatInteger(recycle.data.recycled)} subscriber{recycle.data.recycled === 1 ? '' : 's'} back in the queue.
          </p>
        )}
        {recycle.error && !Object.keys(fields).length ? (
          <div role="alert" className="error-banner">
            {recycle.error instanceof ApiError ? (recycle.error.detail ?? recycle.error.message) : <ErrorMessage error={recycle.error} />}
          </div>
        ) : null}
      </form>
    </section>
  );
}
