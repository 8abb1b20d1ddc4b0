/** One SMS campaign: what it is doing, its subscribers by status, its delivery rates, its actions, "Send again" and its messages. */
import { useParams } from 'react-router';
import type { SmsCampaignRecord } from '../../api/admin-types.ts';
import { CampaignStatus } from '../../api/types.ts';
import { canStillRun } from '../../campaign-words.ts';
import { ProgressBar, SubscriberCounts } from '../../components/campaign-progress.tsx';
import { CampaignActions, CampaignEditPage, CampaignMissing, CampaignSchedule, CampaignTitle, useCampaignRecord } from '../../components/campaign-page.tsx';
import { Loading } from '../../components/ui.tsx';
import { RecycleSubscribers } from '../campaigns/recycle.tsx';
import { SmsCampaignForm } from './form.tsx';
import { SmsMessages } from './messages.tsx';
import { DeliveryRates } from './rates.tsx';

const BACK = { to: '/sms-campaigns', label: 'SMS campaigns' };

export function SmsCampaignPage() {
  const id = Number(useParams().id);
  const campaign = useCampaignRecord<SmsCampaignRecord>('sms-campaigns', id);
  if (campaign.isPending) return <Loading />;
  if (!campaign.data) return <CampaignMissing title="SMS campaign not found" error={campaign.error} back={{ to: '/sms-campaigns', text: 'Back to the SMS campaigns' }} />;
  const c = campaign.data;
  const s = c.status;
  // An SMS campaign is created paused (contract §4): paused and never started reads "Start".
  const startable = s === CampaignStatus.New || (s === CampaignStatus.Pause && !c.has_been_started);
  return (
    <>
      <CampaignTitle campaign={c} back={BACK} />
      <CampaignActions
        campaign={c}
        resource="sms-campaigns"
        startable={startable}
        abortNote="No further message is sent and every contact not yet sent to is marked aborted. An aborted campaign cannot be started again."
      />
      <section aria-labelledby="progress-title">
        <h2 id="progress-title">Progress</h2>
        <ProgressBar campaign={c} />
        <h3>Subscribers</h3>
        <SubscriberCounts campaign={c} />
        <h3>Delivery</h3>
        <DeliveryRates campaign={c} />
        <CampaignSchedule campaign={c} />
        <blockquote className="sms-text">{c.text_message}</blockquote>
      </section>
      {canStillRun(s) && <RecycleSubscribers campaignId={c.id} kind="sms" />}
      <SmsMessages campaignId={c.id} />
    </>
  );
}

export function SmsCampaignEdit() {
  return <CampaignEditPage<SmsCampaignRecord> resource="sms-campaigns" form={(c) => <SmsCampaignForm campaign={c} />} />;
}
