/**
 * SMS campaigns as the API shows them (/rest-api/sms-campaigns/): their fields and record
 * (sms.schema.ts), their gateway and text, and their activity in `progress` (messages sent,
 * delivered, failed, cost). Their rules are src/campaign/kinds.ts's `smsKind`.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { CampaignStatus } from '../../db/schema.ts';
import { smsKind } from '../../campaign/kinds.ts';
import { decimalString } from '../../http/present.ts';
import type { CampaignResource } from './resource-kind.ts';
import { SmsCampaignRecord, smsCampaignFields } from './sms.schema.ts';
import { columnMap } from './values.ts';

/** Messages sent, delivered, failed and their cost, for each SMS campaign. */
async function activityOf(db: Db, ids: number[]): Promise<Map<number, Record<string, unknown>>> {
  const out = new Map<number, Record<string, unknown>>(
    ids.map((id) => [id, { messages_sent: 0, delivered: 0, failed: 0, total_cost: decimalString('0') }]),
  );
  if (ids.length === 0) return out;
  const list = sql.join(ids.map((id) => sql`${id}`), sql`, `);
  const messages = await queryRows<{ id: number; sent: number; delivered: number; failed: number; cost: string }>(
    db,
    sql`select sms_campaign_id as id, count(*) filter (where send_date is not null)::int as sent,
          count(*) filter (where status = 'delivered')::int as delivered, count(*) filter (where status = 'failed')::int as failed,
          coalesce(sum(cost) filter (where status <> 'unsent'), 0)::text as cost
        from sms_messages where sms_campaign_id in (${list}) group by 1`,
  );
  for (const r of messages) {
    out.set(Number(r.id), { messages_sent: r.sent, delivered: r.delivered, failed: r.failed, total_cost: decimalString(r.cost) });
  }
  return out;
}

export const smsCampaignResource: CampaignResource<typeof smsKind.table> = {
  kind: smsKind,
  path: 'sms-campaigns',
  codeColumn: 'sms_campaign_code',
  // contract §4: an SMS campaign is created PAUSE (2) unless told otherwise.
  createdStatus: CampaignStatus.Pause,
  fields: smsCampaignFields,
  columns: columnMap({
    plain: ['text_message'],
    links: { sms_gateway: 'sms_gateway_id', user: 'user_id', sms_template: 'sms_template_id' },
    nullableLinks: ['sms_template'],
  }),
  record: SmsCampaignRecord,
  presentOwn: (row, link) => ({
    sms_campaign_code: row.sms_campaign_code,
    sms_gateway: link('sms-gateway', row.sms_gateway_id),
    text_message: row.text_message,
    sms_template: link('sms-template', row.sms_template_id),
  }),
  activityOf,
  deleted: { code: 200, body: { data: 'sms campaign deleted' } },
};
