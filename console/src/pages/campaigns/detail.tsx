/** One voice campaign: what it is doing, its subscribers by status, cost so far, its actions, calls in progress, survey results and its calls. */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { get, patch, recordPath } from '../../api/client.ts';
import { useCallsLastMinute } from '../../api/queries.ts';
import { CampaignStatus, type VoiceCampaign } from '../../api/types.ts';
import { dialingStateWords, statusName } from '../../campaign-words.ts';
import { CallFigures, ProgressBar, SubscriberCounts } from '../../components/campaign-progress.tsx';
import { ConfirmDialog, EmptyState, ErrorMessage, Loading, Time } from '../../components/ui.tsx';
import { CampaignForm } from './form.tsx';
import { CampaignCdrs } from './cdrs.tsx';
import { CallsInProgress } from './live-calls.tsx';
import { CampaignSurveyResults } from './results.tsx';

/** The campaign's record; ['campaigns', id] is refreshed by every campaign and call event. */
export function useCampaign(id: number) {
  return useQuery({ queryKey: ['campaigns', 'one', id], queryFn: () => get<VoiceCampaign>(recordPath('campaigns', id)) });
}

function Actions({ campaign }: { campaign: VoiceCampaign }) {
  const client = useQueryClient();
  const [confirmAbort, setConfirmAbort] = useState(false);
  const change = useMutation({
    mutationFn: (status: number) => patch(recordPath('campaigns', campaign.id), { status }),
    onSettled: () => client.invalidateQueries({ queryKey: ['campaigns'] }),
  });
  const s = campaign.status;
  const final = s === CampaignStatus.Abort || s === CampaignStatus.End;
  return (
    <div className="actions" aria-label="Campaign actions" role="group">
      {s === CampaignStatus.New && (
        <button type="button" className="primary" disabled={change.isPending} onClick={() => change.mutate(CampaignStatus.Start)}>
          Start
        </button>
      )}
      {s === CampaignStatus.Start && (
        <button type="button" disabled={change.isPending} onClick={() => change.mutate(CampaignStatus.Pause)}>
          Pause
        </button>
      )}
      {s === CampaignStatus.Pause && (
        <button type="button" className="primary" disabled={change.isPending} onClick={() => change.mutate(CampaignStatus.Start)}>
          Resume
        </button>
      )}
      {!final && (
        <button type="button" className="danger" disabled={change.isPending} onClick={() => setConfirmAbort(true)}>
          Abort…
        </button>
      )}
      <Link className="button" to={`/campaigns/${campaign.id}/edit`}>
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
        <p>Calls in progress are hung up and every contact not yet called is marked aborted. An aborted campaign cannot be started again.</p>
      </ConfirmDialog>
    </div>
  );
}

export function CampaignPage() {
  const id = Number(useParams().id);
  const campaign = useCampaign(id);
  const perMinute = useCallsLastMinute(id, campaign.data?.status === CampaignStatus.Start);
  if (campaign.isPending) return <Loading />;
  if (!campaign.data) {
    return (
      <EmptyState title="Campaign not found">
        <ErrorMessage error={campaign.error} />
        <p>
          It does not exist, or it is not yours. <Link to="/campaigns">Back to the campaigns</Link>.
        </p>
      </EmptyState>
    );
  }
  const c = campaign.data;
  return (
    <>
      <p className="crumbs">
        <Link to="/campaigns">Campaigns</Link> /
      </p>
      <div className="page-head title">
        <h1>{c.name}</h1>
        <span className={`status status-${c.status}`} data-testid="status">
          {statusName(c.status)}
        </span>
      </div>
      <p className="waiting" data-testid="dialing-state">
        {dialingStateWords(c.dialing_state)}
      </p>
      <Actions campaign={c} />
      <section aria-labelledby="progress-title">
        <h2 id="progress-title">Progress</h2>
        <ProgressBar campaign={c} />
        <SubscriberCounts campaign={c} />
        <CallFigures campaign={c} perMinute={c.status === CampaignStatus.Start ? (perMinute.data ?? undefined) : undefined} />
        <p className="muted">
          Runs from <Time value={c.startingdate} /> to <Time value={c.expirationdate} />, {c.daily_start_time}–{c.daily_stop_time} each day · created{' '}
          <Time value={c.created_date} />
        </p>
      </section>
      <CallsInProgress campaignId={c.id} running={c.status === CampaignStatus.Start} />
      <CampaignSurveyResults campaignId={c.id} />
      <CampaignCdrs campaignId={c.id} />
    </>
  );
}

export function CampaignEdit() {
  const id = Number(useParams().id);
  const campaign = useCampaign(id);
  if (campaign.isPending) return <Loading />;
  if (!campaign.data) return <ErrorMessage error={campaign.error} />;
  return <CampaignForm campaign={campaign.data} />;
}
