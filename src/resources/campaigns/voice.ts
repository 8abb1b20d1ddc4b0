/**
 * Voice campaigns as the API shows them (/rest-api/campaigns/): their fields and record
 * (voice.schema.ts), their links, and their activity in `progress` (calls placed, answered, cost).
 * Their rules are src/campaign/kinds.ts's `voiceKind`.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { CampaignStatus, DialMethod, LegType, campaigns } from '../../db/schema.ts';
import type { FieldErrors } from '../../http/errors.ts';
import { voiceKind } from '../../campaign/kinds.ts';
import type { RetryRulesValue } from '../../campaign/retry-rules.ts';
import { waitingByCampaign } from '../../campaign/contact-waits.ts';
import { decimalString } from '../../http/present.ts';
import type { CampaignResource } from './resource-kind.ts';
import { columnMap } from './values.ts';
import { CampaignRecord, campaignFields } from './voice.schema.ts';

/** Calls placed, answered calls and their cost, for each campaign. */
async function activityOf(db: Db, campaignIds: number[]): Promise<Map<number, Record<string, unknown>>> {
  const out = new Map<number, Record<string, unknown>>(campaignIds.map((id) => [id, { calls_placed: 0, answered: 0, total_cost: decimalString('0') }]));
  if (campaignIds.length === 0) return out;
  const ids = sql.join(campaignIds.map((id) => sql`${id}`), sql`, `);
  const calls = await queryRows<{ campaign_id: number; n: number }>(
    db,
    sql`select campaign_id, count(*)::int as n from callrequests where campaign_id in (${ids}) group by 1`,
  );
  for (const r of calls) Object.assign(out.get(Number(r.campaign_id)) ?? {}, { calls_placed: Number(r.n) });
  const cdrRows = await queryRows<{ campaign_id: number; answered: number; cost: string }>(
    db,
    sql`select campaign_id, count(*) filter (where leg_type = ${LegType.A} and disposition = 'ANSWER')::int as answered,
          coalesce(sum(call_cost), 0)::text as cost
        from cdrs where campaign_id in (${ids}) group by 1`,
  );
  for (const r of cdrRows) Object.assign(out.get(Number(r.campaign_id)) ?? {}, { answered: Number(r.answered), total_cost: decimalString(r.cost) });
  // Subscribers held by contact caps or legal calling hours (issue 16); present.ts words dialing_state from them.
  for (const [id, waiting] of await waitingByCampaign(db, campaignIds)) Object.assign(out.get(id) ?? {}, { waiting });
  return out;
}

/**
 * contract §4 dial_method, issue 16 item 10: power dialing (3) places agent_dial_rate calls per
 * line of max_aleg (engine/dialer.ts lineCap), so it needs both; without them it would be stored
 * with no effect. agent_dial_rate is read by power dialing only, so with another method it must
 * stay at its column's default (1.00, what Newfies clients send): any other rate would be stored
 * without effect. On create, a field not given has its column's default; an update is checked on
 * the merged record when it sets a field of the rule (a row stored before these rules can still be
 * paused or renamed).
 */
function checkDialMethod(record: Readonly<Record<string, unknown>>, changed?: readonly string[]): FieldErrors {
  const sets = (...names: string[]) => !changed || changed.some((c) => names.includes(c));
  const value = (name: 'dial_method' | 'max_aleg' | 'agent_dial_rate') => Number(record[name] ?? campaigns[name].default);
  const errors: FieldErrors = {};
  if (value('dial_method') !== DialMethod.Power) {
    const rate = Number(campaigns.agent_dial_rate.default);
    if (sets('dial_method', 'agent_dial_rate') && value('agent_dial_rate') !== rate) {
      errors.agent_dial_rate = [`agent_dial_rate is read by power dialing (dial_method 3) only: with dial_method ${value('dial_method')} it must be ${rate.toFixed(2)}.`];
    }
    return errors;
  }
  if (!sets('dial_method', 'max_aleg', 'agent_dial_rate')) return errors;
  if (!(value('max_aleg') > 0)) errors.max_aleg = ['Power dialing (dial_method 3) places agent_dial_rate calls per line: set max_aleg above 0.'];
  if (!(value('agent_dial_rate') > 0)) errors.agent_dial_rate = ['Power dialing (dial_method 3) needs an agent_dial_rate above 0.'];
  return errors;
}

export const voiceCampaignResource: CampaignResource<typeof voiceKind.table> = {
  kind: voiceKind,
  path: 'campaigns',
  codeColumn: 'campaign_code',
  createdStatus: CampaignStatus.New,
  fields: campaignFields,
  columns: columnMap({
    plain: [
      'caller_name', 'max_aleg', 'max_xfer', 'dial_method', 'agent_dial_rate', 'calltimeout', 'extra_data', 'voicemail',
      'amd_behavior', 'timezone_dialing', 'completion_enabled', 'completion_maxretry', 'completion_intervalretry', 'retry_rules',
      'record_calls',
    ],
    links: {
      aleg_gateway: 'aleg_gateway_id',
      sms_gateway: 'sms_gateway_id',
      object_id: 'survey_id',
      voicemail_audiofile: 'voicemail_audiofile_id',
      dnc: 'dnc_id',
      callerid_group: 'callerid_group_id',
      user: 'user_id',
    },
    // (retry_rules is no link, but a null clears it the same way: back to maxretry/intervalretry)
    nullableLinks: ['sms_gateway', 'voicemail_audiofile', 'dnc', 'callerid_group', 'retry_rules'],
  }),
  record: CampaignRecord,
  presentOwn: (row, link) => ({
    campaign_code: row.campaign_code,
    caller_name: row.caller_name,
    max_aleg: row.max_aleg,
    max_xfer: row.max_xfer,
    dial_method: row.dial_method,
    agent_dial_rate: decimalString(row.agent_dial_rate, 2),
    calltimeout: row.calltimeout,
    aleg_gateway: link('gateway', row.aleg_gateway_id),
    sms_gateway: link('sms-gateway', row.sms_gateway_id),
    object_id: row.survey_id,
    extra_data: row.extra_data,
    voicemail: row.voicemail,
    amd_behavior: row.amd_behavior,
    voicemail_audiofile: link('audio-files', row.voicemail_audiofile_id),
    dnc: link('dnc', row.dnc_id),
    callerid_group: link('callerid_group', row.callerid_group_id),
    timezone_dialing: row.timezone_dialing,
    completion_enabled: row.completion_enabled,
    record_calls: row.record_calls,
    completion_maxretry: row.completion_maxretry,
    completion_intervalretry: row.completion_intervalretry,
    retry_rules: (row.retry_rules ?? null) as RetryRulesValue | null,
  }),
  activityOf,
  check: checkDialMethod,
  deleted: { code: 204 },
};
