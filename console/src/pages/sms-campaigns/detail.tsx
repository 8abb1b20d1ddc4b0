/** One SMS campaign: what it is doing, its subscribers by status, its delivery rates, its actions and its messages. */
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { get, patch, recordPath } from '../../api/client.ts';
import type { SmsCampaignRecord } from '../../api/admin-types.ts';
import { CampaignStatus } from '../../api/types.ts';
import { dialingStateWords, statusName } from '../../campaign-words.ts';
import { ProgressBar, SubscriberCounts } from '../../components/campaign-progress.tsx';
import { ConfirmDialog, EmptyState, ErrorMessage, Loading, Time } from '../../components/ui.tsx';
import { SmsCampaignForm } from './form.tsx';
import { SmsMessages } from './messages.tsx';
import { DeliveryRates } from './rates.tsx';

/** The campaign's record; ['sms-campaigns', …] is refreshed by every campaign and sms event. */
function useSmsCampaign(id: number) {
  return useQuery({ queryKey: ['sms-campaigns', 'one', id], queryFn: () => get<SmsCampaignRecord>(recordPath('sms-campaigns', id)) });
}

function Actions({ campaign }: { campaign: SmsCampaignRecord }) {
  const client = useQueryClient();
  const [confirmAbort, setConfirmAbort] = useState(false);
  const change = useMutation({
    mutationFn: (status: number) => patch(recordPath('sms-campaigns', campaign.id), { status }),
    onSettled: () => client.invalidateQueries({ queryKey: ['sms-campaigns'] }),
  });
  const s = campaign.status;
  const final = s === CampaignStatus.Abort || s === CampaignStatus.End;
  // An SMS campaign is created paused (contract §4): paused and never started reads "Start".
  const startable = s === CampaignStatus.New || (s === CampaignStatus.Pause && !campaign.has_been_started);
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
      <Link className="button" to={`/sms-campaigns/${campaign.id}/edit`}>
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
        <p>No further message is sent and every contact not yet sent to is marked aborted. An aborted campaign cannot be started again.</p>
      </ConfirmDialog>
    </div>
  );
}

export function SmsCampaignPage() {
  const id = Number(useParams().id);
  const campaign = useSmsCampaign(id);
  if (campaign.isPending) return <Loading />;
  if (!campaign.data) {
    return (
      <EmptyState title="SMS campaign not found">
        <ErrorMessage error={campaign.error} />
        <p>
          It does not exist, or it is not yours. <Link to="/sms-campaigns">Back to the SMS campaigns</Link>.
        </p>
      </EmptyState>
    );
  }
  const c = campaign.data;
  return (
    <>
      <p className="crumbs">
        <Link to="/sms-campaigns">SMS campaigns</Link> /
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
        <h3>Subscribers</h3>
        <SubscriberCounts campaign={c} />
        <h3>Delivery</h3>
        <DeliveryRates campaign={c} />
        <p className="muted">
          Runs from <Time value={c.startingdate} /> to <Time value={c.expirationdate} />, {c.daily_start_time}–{c.daily_stop_time} each day · created{' '}
          <Time value={c.created_date} />
        </p>
        <blockquote className="sms-text">{c.text_message}</blockquote>
      </section>
      <SmsMessages campaignId={c.id} />
    </>
  );
}

export function SmsCampaignEdit() {
  const id = Number(useParams().id);
  const campaign = useSmsCampaign(id);
  if (campaign.isPending) return <Loading />;
  if (!campaign.data) return <ErrorMessage error={campaign.error} />;
  return <SmsCampaignForm campaign={campaign.data} />;
}
