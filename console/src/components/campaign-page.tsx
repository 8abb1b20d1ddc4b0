/**
 * What the voice and the SMS campaign pages share: the record's query, its title with status and
 * what it waits for, its actions (start, pause, resume, abort behind a confirmation, edit), its
 * schedule, the answer when it is missing, and the edit page. Only what differs stays in
 * pages/campaigns/ and pages/sms-campaigns/ (the figures, calls or messages below).
 */
import { useState, type ReactNode } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { get, patch, recordPath } from '../api/client.ts';
import { CampaignStatus, type CampaignBase } from '../api/types.ts';
import { dialingStateWords, statusName } from '../campaign-words.ts';
import { formatInteger } from '../format.ts';
import { doneCount } from './campaign-progress.tsx';
import { ConfirmDialog, EmptyState, ErrorMessage, Loading, Time } from './ui.tsx';

/** The API resource of a kind of campaign; it is also the console's path and the queries' first key. */
export type CampaignResource = 'campaigns' | 'sms-campaigns';

/** The campaign's record; [resource, …] is refreshed by every campaign event (and call or sms event). */
export function useCampaignRecord<T extends CampaignBase>(resource: CampaignResource, id: number) {
  return useQuery({ queryKey: [resource, 'one', id], queryFn: () => get<T>(recordPath(resource, id)) });
}

/** Start (when `startable`), pause, resume, abort after a confirmation that says `abortNote`, and edit. */
export function CampaignActions({ campaign, resource, startable, abortNote }: { campaign: CampaignBase; resource: CampaignResource; startable: boolean; abortNote: string }) {
  const client = useQueryClient();
  const [confirmAbort, setConfirmAbort] = useState(false);
  const change = useMutation({
    mutationFn: (status: number) => patch(recordPath(resource, campaign.id), { status }),
    onSettled: () => client.invalidateQueries({ queryKey: [resource] }),
  });
  const s = campaign.status;
  const final = s === CampaignStatus.Abort || s === CampaignStatus.End;
  return (
    <div className="actions" aria-label="Campaign actions" role="group">
      {startable && (
        <button type="button" className="primary" disabled={change.isPending} onClick={() => change.mutate(CampaignStatus.Start)}>
          Start
        </button>
      )}
      {s === CampaignStatus.Start && (
        <button type="button" disabled={change.isPending} onClick={() => change.mutate(CampaignStatus.Pause)}>
          Pause
        </button>
      )}
      {s === CampaignStatus.Pause && !startable && (
        <button type="button" className="primary" disabled={change.isPending} onClick={() => change.mutate(CampaignStatus.Start)}>
          Resume
        </button>
      )}
      {!final && (
        <button type="button" className="danger" disabled={change.isPending} onClick={() => setConfirmAbort(true)}>
          Abort…
        </button>
      )}
      <Link className="button" to={`/${resource}/${campaign.id}/edit`}>
        Edit
      </Link>
      {change.error && <ErrorMessage error={change.error} />}
      <ConfirmDialog
        open={confirmAbort}
        title={`Abort ${campaign.name}?`}
        confirmLabel="Abort the campaign"
        onCancel={() => setConfirmAbort(false)}
        onConfirm={() => {
          setConfirmAbort(false);
          change.mutate(CampaignStatus.Abort);
        }}
      >
        <p>{abortNote}</p>
      </ConfirmDialog>
    </div>
  );
}

/** Crumbs back to the list, the name, the status and what the campaign is doing or waiting for, in words. */
export function CampaignTitle({ campaign, back }: { campaign: CampaignBase; back: { to: string; label: string } }) {
  return (
    <>
      <p className="crumbs">
        <Link to={back.to}>{back.label}</Link> /
      </p>
      <div className="page-head title">
        <h1>{campaign.name}</h1>
        <span className={`status status-${campaign.status}`} data-testid="status">
          {statusName(campaign.status)}
        </span>
      </div>
      <p className="waiting" data-testid="dialing-state">
        {dialingStateWords(campaign.dialing_state)}
      </p>
    </>
  );
}

/** When it runs: its dates, its daily window, when it was made. */
export function CampaignSchedule({ campaign: c }: { campaign: CampaignBase }) {
  return (
    <p className="muted">
      Runs from <Time value={c.startingdate} /> to <Time value={c.expirationdate} />, {c.daily_start_time}–{c.daily_stop_time} each day · created{' '}
      <Time value={c.created_date} />
    </p>
  );
}

/** A campaign that could not be read (missing, or not the user's). */
export function CampaignMissing({ title, error, back }: { title: string; error: unknown; back: { to: string; text: string } }) {
  return (
    <EmptyState title={title}>
      <ErrorMessage error={error} />
      <p>
        It does not exist, or it is not yours. <Link to={back.to}>{back.text}</Link>.
      </p>
    </EmptyState>
  );
}

/** /…/:id/edit: the campaign's form once its record is read. */
export function CampaignEditPage<T extends CampaignBase>({ resource, form }: { resource: CampaignResource; form: (campaign: T) => ReactNode }) {
  const id = Number(useParams().id);
  const campaign = useCampaignRecord<T>(resource, id);
  if (campaign.isPending) return <Loading />;
  if (!campaign.data) return <ErrorMessage error={campaign.error} />;
  return form(campaign.data);
}

/** The header cells of a campaigns list that CampaignCells fill. */
export function CampaignHeads() {
  return (
    <>
      <th scope="col">Name</th>
      <th scope="col">Status</th>
      <th scope="col">Now</th>
      <th scope="col">Done</th>
    </>
  );
}

/** A campaigns list row's first cells: the name (a link to its page), status, what it is doing, done of all. */
export function CampaignCells({ campaign: c, resource }: { campaign: CampaignBase; resource: CampaignResource }) {
  return (
    <>
      <td>
        <Link to={`/${resource}/${c.id}`}>{c.name}</Link>
      </td>
      <td>{statusName(c.status)}</td>
      <td>{dialingStateWords(c.dialing_state)}</td>
      <td className="num">
        {formatInteger(doneCount(c))} / {formatInteger(c.progress.subscribers.total)}
      </td>
    </>
  );
}
