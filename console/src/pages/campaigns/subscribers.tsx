/**
 * A voice campaign's subscribers on its page: each number, where it stands (status, attempts, the
 * last call, why it ended or waits) and its appointment if it has one (`scheduled_at`, issue 16:
 * not called before it), a page at a time from /rest-api/subscriber-list/ (a bare array with a
 * next link, so no count), filtered by status. While the campaign can still dial, a row's
 * "Schedule" sets the appointment (PATCH, the browser's zone; empty clears it). On a subscriber
 * that has ended it is "Call again": the same PATCH also puts it back to pending, called then;
 * its attempts so far still count (the campaign's "Call again", recycling, counts from zero).
 */
import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, getArrayPage, listPath, patch, recordPath } from '../../api/client.ts';
import type { Subscriber } from '../../api/types.ts';
import { FINAL_SUBSCRIBER_STATUSES, SUBSCRIBER_LABELS, SUBSCRIBER_STATUS } from '../../campaign-words.ts';
import { ActionsHead, PagedResults, ResultsTable, usePagedQuery } from '../../components/paged-list.tsx';
import { AnyOf, ErrorMessage, Field, Time } from '../../components/ui.tsx';
import { formatInteger, fromLocalInput, toLocalInput } from '../../format.ts';
import { waitReasonText } from '../../../../src/campaign/contact-policy.ts';

/** The voice statuses by number, with their labels, in the order the campaign page shows them. */
const STATUSES = SUBSCRIBER_LABELS.filter(([name]) => name in SUBSCRIBER_STATUS).map(([name, label]) => [SUBSCRIBER_STATUS[name], label] as const);
const LABEL: Record<number, string> = Object.fromEntries(STATUSES);
const ENDED = new Set(FINAL_SUBSCRIBER_STATUSES.map((name) => SUBSCRIBER_STATUS[name]));

export function CampaignSubscribers({ campaignId, canDial }: { campaignId: number; canDial: boolean }) {
  const [status, setStatus] = useState('');
  const [editing, setEditing] = useState<number | undefined>();
  const list = usePagedQuery<Subscriber>(
    ['subscriber-list', 'campaign', campaignId, status],
    (page, page_size) => listPath('subscriber-list', { campaign_id: campaignId, status, page, page_size }),
    { read: getArrayPage },
  );

  return (
    <section aria-labelledby="subscribers-title">
      <h2 id="subscribers-title">Subscribers</h2>
      <form className="filters" aria-label="Filter the subscribers" onSubmit={(e) => e.preventDefault()}>
        <AnyOf
          label="Status"
          value={status}
          options={STATUSES}
          onChange={(value) => {
            setStatus(value);
            list.onPage(1);
          }}
        />
      </form>
      <PagedResults
        list={list}
        empty={<p className="muted">{status ? 'No subscriber has this status.' : 'No subscriber yet: the campaign’s phonebooks’ contacts become its subscribers when it starts.'}</p>}
      >
        {(rows) => (
          <ResultsTable
            caption="Subscribers of this campaign"
            head={
              <>
                <th scope="col">Number</th>
                <th scope="col">Name</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last call</th>
                <th scope="col">Appointment</th>
                <th scope="col">Why</th>
                {canDial && <ActionsHead />}
              </>
            }
          >
            {rows.map((s) => (
              <SubscriberRow key={s.id} subscriber={s} canDial={canDial} editing={editing === s.id} onEdit={(open) => setEditing(open ? s.id : undefined)} />
            ))}
          </ResultsTable>
        )}
      </PagedResults>
    </section>
  );
}

function SubscriberRow({ subscriber: s, canDial, editing, onEdit }: { subscriber: Subscriber; canDial: boolean; editing: boolean; onEdit: (open: boolean) => void }) {
  const ended = ENDED.has(s.status);
  const action = ended ? 'Call again' : 'Schedule';
  return (
    <>
      <tr>
        <td>{s.duplicate_contact}</td>
        <td>{s.full_name}</td>
        <td>{LABEL[s.status] ?? `Status ${s.status}`}</td>
        <td className="num">{formatInteger(s.count_attempt)}</td>
        <td>
          <Time value={s.last_attempt} />
        </td>
        <td>
          <Time value={s.scheduled_at} />
        </td>
        <td>{s.wait_reason ? `Waiting: ${waitReasonText[s.wait_reason]}` : s.reason}</td>
        {canDial && (
          <td>
            <button type="button" aria-expanded={editing} aria-label={`${action} ${s.duplicate_contact}`} onClick={() => onEdit(!editing)}>
              {action}
            </button>
          </td>
        )}
      </tr>
      {editing && (
        <tr>
          <td colSpan={8}>
            <ScheduleForm subscriber={s} ended={ended} onDone={() => onEdit(false)} />
          </td>
        </tr>
      )}
    </>
  );
}

/** The appointment of one subscriber; for one that has ended, also back to pending (status 1). */
function ScheduleForm({ subscriber: s, ended, onDone }: { subscriber: Subscriber; ended: boolean; onDone: () => void }) {
  const [at, setAt] = useState(toLocalInput(s.scheduled_at));
  const client = useQueryClient();
  const save = useMutation({
    mutationFn: () =>
      patch(recordPath('subscriber-list', s.id), {
        scheduled_at: at ? (fromLocalInput(at) ?? at) : null,
        ...(ended ? { status: SUBSCRIBER_STATUS.pending } : {}),
      }),
    // Closed as soon as the server took it, then the list is read again: a row that already
    // shows its new state never has a form still open under it (its button would close it).
    onSuccess: () => {
      onDone();
      return Promise.all([client.invalidateQueries({ queryKey: ['subscriber-list'] }), ended && client.invalidateQueries({ queryKey: ['campaigns'] })]);
    },
  });
  const fields = save.error instanceof ApiError ? save.error.fields : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form className="campaign-form" onSubmit={submit} noValidate aria-label={`Appointment of ${s.duplicate_contact}`}>
      {ended && <p className="muted">It has ended ({LABEL[s.status]}): saving puts it back in the queue, called at that time; its attempts so far still count.</p>}
      <div className="group-fields">
        <Field label="Call at" hint="In your browser’s time zone. Empty: as soon as the campaign may." errors={fields.scheduled_at ?? fields.status}>
          {(p) => <input {...p} type="datetime-local" step={1} value={at} onChange={(e) => setAt(e.target.value)} />}
        </Field>
      </div>
      <div className="actions">
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : ended ? 'Call again' : 'Save appointment'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      {save.error && !Object.keys(fields).length ? <ErrorMessage error={save.error} /> : null}
    </form>
  );
}
