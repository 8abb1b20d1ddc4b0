/** An SMS campaign's delivery figures: sent, delivered, failed, as counts and shares of the sent. */
import type { SmsCampaignRecord as SmsCampaign } from '../../api/admin-types.ts';
import { formatInteger, formatMoney, formatPercent } from '../../format.ts';

export function smsProgress(c: SmsCampaign) {
  const p = c.progress;
  return { sent: p.messages_sent ?? 0, delivered: p.delivered ?? 0, failed: p.failed ?? 0, cost: p.total_cost };
}

export function DeliveryRates({ campaign }: { campaign: SmsCampaign }) {
  const { sent, delivered, failed, cost } = smsProgress(campaign);
  // Sent but neither delivered nor failed: no delivery report yet (or none will come).
  const waiting = Math.max(0, sent - delivered - failed);
  const share = (n: number) => (sent ? formatPercent(n / sent) : '–');
  return (
    <dl className="figures" data-testid="delivery-rates">
      <div>
        <dt>Sent</dt>
        <dd data-testid="rate-sent">{formatInteger(sent)}</dd>
      </div>
      <div>
        <dt>Delivered</dt>
        <dd data-testid="rate-delivered">
          {formatInteger(delivered)} ({share(delivered)})
        </dd>
      </div>
      <div>
        <dt>Failed</dt>
        <dd data-testid="rate-failed">
          {formatInteger(failed)} ({share(failed)})
        </dd>
      </div>
      <div>
        <dt title="Sent, with no delivery report yet">Awaiting report</dt>
        <dd>
          {formatInteger(waiting)} ({share(waiting)})
        </dd>
      </div>
      <div>
        <dt>Spend</dt>
        <dd data-testid="spend">{formatMoney(cost)}</dd>
      </div>
    </dl>
  );
}
