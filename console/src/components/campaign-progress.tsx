/** A campaign's progress as the dashboard and the campaign page show it (voice or SMS). */
import type { CampaignBase } from '../api/types.ts';
import { SUBSCRIBER_LABELS } from '../campaign-words.ts';
import { formatInteger, formatMoney, formatPercent } from '../format.ts';

/** Subscribers neither waiting nor being called: the part of the campaign that is done. */
export function doneCount(c: CampaignBase): number {
  const s = c.progress.subscribers;
  return s.total - (s.pending ?? 0) - (s.in_process ?? 0) - (s.pause ?? 0);
}

export function ProgressBar({ campaign }: { campaign: CampaignBase }) {
  const total = campaign.progress.subscribers.total;
  const done = doneCount(campaign);
  return (
    <div className="progress">
      <progress max={Math.max(total, 1)} value={done} aria-label={`${campaign.name}: ${done} of ${total} subscribers done`} />
      <span>
        {formatInteger(done)} of {formatInteger(total)} done
      </span>
    </div>
  );
}

/** Subscribers by status: every status of the campaign's kind, zeros included (a table, for screen readers too). */
export function SubscriberCounts({ campaign, compact = false }: { campaign: CampaignBase; compact?: boolean }) {
  const s = campaign.progress.subscribers;
  const rows = SUBSCRIBER_LABELS.filter(([key]) => key in s && (!compact || s[key]));
  return (
    <dl className={`counts${compact ? ' compact' : ''}`}>
      {rows.map(([key, label]) => (
        <div key={key} data-status={key}>
          <dt>{label}</dt>
          <dd>{formatInteger(s[key])}</dd>
        </div>
      ))}
    </dl>
  );
}

/** Calls placed, answered (and the answer rate), spend. */
export function CallFigures({ campaign, perMinute }: { campaign: CampaignBase; perMinute?: number }) {
  const p = campaign.progress;
  const placed = p.calls_placed ?? 0;
  const answered = p.answered ?? 0;
  return (
    <dl className="figures">
      {perMinute !== undefined && (
        <div>
          <dt title="Calls started in the last 60 seconds that have ended (from their call records)">Calls per minute</dt>
          <dd data-testid="calls-per-minute">{formatInteger(perMinute)}</dd>
        </div>
      )}
      <div>
        <dt>Calls placed</dt>
        <dd>{formatInteger(placed)}</dd>
      </div>
      <div>
        <dt>Answer rate</dt>
        <dd>{placed ? `${formatPercent(answered / placed)} (${formatInteger(answered)})` : '–'}</dd>
      </div>
      <div>
        <dt>Cost so far</dt>
        <dd data-testid="spend">{formatMoney(p.total_cost)}</dd>
      </div>
    </dl>
  );
}

/** An SMS campaign's messages: sent, delivered (and the delivery rate), failed, spend. */
export function SmsFigures({ campaign }: { campaign: CampaignBase }) {
  const p = campaign.progress as CampaignBase['progress'] & { messages_sent?: number; delivered?: number; failed?: number };
  const sent = p.messages_sent ?? 0;
  const delivered = p.delivered ?? 0;
  return (
    <dl className="figures">
      <div>
        <dt>Messages sent</dt>
        <dd>{formatInteger(sent)}</dd>
      </div>
      <div>
        <dt>Delivered</dt>
        <dd>{sent ? `${formatPercent(delivered / sent)} (${formatInteger(delivered)})` : '–'}</dd>
      </div>
      <div>
        <dt>Failed</dt>
        <dd>{formatInteger(p.failed ?? 0)}</dd>
      </div>
      <div>
        <dt>Spend</dt>
        <dd>{formatMoney(p.total_cost)}</dd>
      </div>
    </dl>
  );
}
