/** One voice campaign: what it is doing, its subscriber counts by status, cost so far, its actions, calling some again, the subscribers themselves (and their appointments), calls in progress, survey results and its calls. */
import { useParams } from 'react-router';
import { useCallsLastMinute } from '../../api/queries.ts';
import { CampaignStatus, type VoiceCampaign } from '../../api/types.ts';
import { canStillRun } from '../../campaign-words.ts';
import { CallFigures, ProgressBar, SubscriberCounts } from '../../components/campaign-progress.tsx';
import { CampaignActions, CampaignEditPage, CampaignMissing, CampaignSchedule, CampaignTitle, useCampaignRecord } from '../../components/campaign-page.tsx';
import { Loading } from '../../components/ui.tsx';
import { CampaignForm } from './form.tsx';
import { CampaignCdrs } from './cdrs.tsx';
import { CallsInProgress } from './live-calls.tsx';
import { RecycleSubscribers } from './recycle.tsx';
import { CampaignSubscribers } from './subscribers.tsx';
import { CampaignSurveyResults } from './results.tsx';

const BACK = { to: '/campaigns', label: 'Campaigns' };

export function CampaignPage() {
  const id = Number(useParams().id);
  const campaign = useCampaignRecord<VoiceCampaign>('campaigns', id);
  const perMinute = useCallsLastMinute(id, campaign.data?.status === CampaignStatus.Start);
  if (campaign.isPending) return <Loading />;
  if (!campaign.data) return <CampaignMissing title="Campaign not found" error={campaign.error} back={{ to: '/campaigns', text: 'Back to the campaigns' }} />;
  const c = campaign.data;
  // Ended or aborted, it never dials again (the API refuses recycling then).
  const canDial = canStillRun(c.status);
  return (
    <>
      <CampaignTitle campaign={c} back={BACK} />
      <CampaignActions
        campaign={c}
        resource="campaigns"
        startable={c.status === CampaignStatus.New}
        abortNote="Calls in progress are hung up and every contact not yet called is marked aborted. An aborted campaign cannot be started again."
      />
      <section aria-labelledby="progress-title">
        <h2 id="progress-title">Progress</h2>
        <ProgressBar campaign={c} />
        <SubscriberCounts campaign={c} />
        <CallFigures campaign={c} perMinute={c.status === CampaignStatus.Start ? (perMinute.data ?? undefined) : undefined} />
        <CampaignSchedule campaign={c} />
      </section>
      {canDial && <RecycleSubscribers campaignId={c.id} />}
      <CampaignSubscribers campaignId={c.id} canDial={canDial} />
      <CallsInProgress campaignId={c.id} running={c.status === CampaignStatus.Start} />
      <CampaignSurveyResults campaignId={c.id} />
      <CampaignCdrs campaignId={c.id} />
    </>
  );
}

export function CampaignEdit() {
  return <CampaignEditPage<VoiceCampaign> resource="campaigns" form={(c) => <CampaignForm campaign={c} />} />;
}
