/**
 * "Call again" on a voice campaign's page: POST /rest-api/campaigns/<id>/recycle/ (issue 16) puts
 * the subscribers that ended in the chosen statuses (and, if any are ticked, whose last call ended
 * with one of the chosen dispositions, or was before a date) back to pending, their attempts
 * counted from zero. Shown while the campaign can still dial (not ended, not aborted: the API
 * answers 409 then). The API's messages go under the part they name.
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, post, recordPath } from '../../api/client.ts';
import { DISPOSITIONS, FINAL_SUBSCRIBER_STATUSES, SUBSCRIBER_LABELS, SUBSCRIBER_STATUS } from '../../campaign-words.ts';
import { CheckboxGroup, ErrorMessage, Field } from '../../components/ui.tsx';
import { formatInteger, fromLocalInput } from '../../format.ts';

/** The final subscriber statuses (contract §4) that can be recycled, named as the campaign page names them. */
const LABEL = Object.fromEntries(SUBSCRIBER_LABELS);
const STATUSES = FINAL_SUBSCRIBER_STATUSES.map((name) => [SUBSCRIBER_STATUS[name], LABEL[name]] as const);

export function RecycleSubscribers({ campaignId }: { campaignId: number }) {
  const [statuses, setStatuses] = useState<number[]>([SUBSCRIBER_STATUS.fail]);
  const [dispositions, setDispositions] = useState<string[]>([]);
  const [before, setBefore] = useState('');
  const client = useQueryClient();
  const recycle = useMutation({
    mutationFn: () =>
      post<{ recycled: number }>(`${recordPath('campaigns', campaignId)}recycle/`, {
        // Nothing ticked is sent as an empty list, for the API to say it may not be empty.
        statuses,
        ...(dispositions.length ? { dispositions } : {}),
        ...(before ? { last_attempt_before: fromLocalInput(before) ?? before } : {}),
      }),
    onSuccess: () => client.invalidateQueries({ queryKey: ['campaigns'] }),
  });
  const fields = recycle.error instanceof ApiError ? recycle.error.fields : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    recycle.mutate();
  };
  return (
    <section aria-labelledby="recycle-title">
      <h2 id="recycle-title">Call again</h2>
      <form className="campaign-form" onSubmit={submit} noValidate aria-label="Call again">
        <p className="muted">Subscribers that ended as chosen go back to pending, their attempts counted from zero, and are called again while the campaign runs.</p>
        <CheckboxGroup legend="Ended as" hint="At least one." options={STATUSES} chosen={statuses} onChange={setStatuses} errors={fields.statuses} />
        <CheckboxGroup legend="Last call" hint="None ticked: any." options={DISPOSITIONS} chosen={dispositions} onChange={setDispositions} errors={fields.dispositions} />
        <div className="group-fields">
          <Field label="Last called before" hint="In your browser’s time zone. Empty: any time." errors={fields.last_attempt_before}>
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
