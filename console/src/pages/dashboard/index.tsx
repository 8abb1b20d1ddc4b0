/**
 * Dashboard: the campaigns running now (voice and SMS) with their live progress and what each is
 * waiting for, those that finished in the last day, and the user's balance. Kept current by the
 * event stream (api/events.tsx invalidates ['campaigns'], ['sms-campaigns'], ['cdr'], ['users']).
 */
import { Link } from 'react-router';
import { useAllCampaigns, useAllSmsCampaigns, useCallsLastMinute, useMe } from '../../api/queries.ts';
import { CampaignStatus, type CampaignBase } from '../../api/types.ts';
import { dialingStateWords, statusName } from '../../campaign-words.ts';
import { CallFigures, ProgressBar, SmsFigures, SubscriberCounts } from '../../components/campaign-progress.tsx';
import { EmptyState, ErrorMessage, Loading } from '../../components/ui.tsx';
import { formatMoney } from '../../format.ts';

const DAY = 24 * 3600 * 1000;
type Kind = 'voice' | 'sms';

function CampaignCard({ campaign, kind }: { campaign: CampaignBase; kind: Kind }) {
  const running = campaign.status === CampaignStatus.Start;
  const perMinute = useCallsLastMinute(campaign.id, kind === 'voice' && running);
  const title = kind === 'voice' ? <Link to={`/campaigns/${campaign.id}`}>{campaign.name}</Link> : campaign.name;
  return (
    <article className="card" aria-label={`${kind === 'voice' ? 'Campaign' : 'SMS campaign'} ${campaign.name}`} data-campaign-id={campaign.id}>
      <header>
        <h3>{title}</h3>
        <span className="kind">{kind === 'voice' ? 'Voice' : 'SMS'}</span>
        <span className={`status status-${campaign.status}`} data-testid="status">
          {statusName(campaign.status)}
        </span>
      </header>
      <p className="waiting" data-testid="dialing-state">
        {dialingStateWords(campaign.dialing_state)}
      </p>
      <ProgressBar campaign={campaign} />
      <SubscriberCounts campaign={campaign} compact />
      {kind === 'voice' ? (
        <CallFigures campaign={campaign} perMinute={running ? (perMinute.data ?? undefined) : undefined} />
      ) : (
        <SmsFigures campaign={campaign} />
      )}
    </article>
  );
}

function Balance() {
  const me = useMe();
  if (!me.data) return null;
  return (
    <p className="balance">
      Balance: <strong data-testid="balance">{formatMoney(me.data.balance)}</strong>
      <span className="muted">
        {' '}
        · calls {formatMoney(me.data.call_rate)} a minute · SMS {formatMoney(me.data.sms_rate)} a part
      </span>
    </p>
  );
}

export default function Dashboard() {
  const voice = useAllCampaigns();
  const sms = useAllSmsCampaigns();
  if (voice.isPending || sms.isPending) return <Loading />;
  const all: [CampaignBase, Kind][] = [
    ...(voice.data ?? []).map((c) => [c, 'voice'] as [CampaignBase, Kind]),
    ...(sms.data ?? []).map((c) => [c, 'sms'] as [CampaignBase, Kind]),
  ];
  const active = all.filter(([c]) => c.status === CampaignStatus.Start || c.status === CampaignStatus.Pause);
  const since = Date.now() - DAY;
  const finished = all.filter(
    ([c]) => (c.status === CampaignStatus.End || c.status === CampaignStatus.Abort) && new Date(c.updated_date).getTime() >= since,
  );
  return (
    <>
      <h1>Dashboard</h1>
      <Balance />
      <ErrorMessage error={voice.error ?? sms.error} />
      <section aria-labelledby="running-title">
        <h2 id="running-title">Running and paused</h2>
        {active.length === 0 ? (
          <EmptyState title="No campaign is running">
            <p>
              Create a campaign on the <Link to="/campaigns/new">Campaigns</Link> page and start it: its progress shows here as it dials.
            </p>
          </EmptyState>
        ) : (
          <div className="cards">
            {active.map(([c, kind]) => (
              <CampaignCard key={`${kind}-${c.id}`} campaign={c} kind={kind} />
            ))}
          </div>
        )}
      </section>
      {finished.length > 0 && (
        <section aria-labelledby="finished-title">
          <h2 id="finished-title">Finished in the last 24 hours</h2>
          <div className="cards">
            {finished.map(([c, kind]) => (
              <CampaignCard key={`${kind}-${c.id}`} campaign={c} kind={kind} />
            ))}
          </div>
        </section>
      )}
    </>
  );
}
