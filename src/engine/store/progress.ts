/**
 * What the campaign report (report.ts) reads, for both kinds: the activity per campaign — A-leg
 * CDRs for voice, sms_messages for SMS — since a watermark id (primary key reads only) or in all,
 * the watermark itself, and the campaigns that left START.
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { CampaignStatus, LegType, SmsMessageStatus } from '../../db/schema.ts';
import { intArray } from '../../db/sql.ts';

export type ActivityKind = 'voice' | 'sms';

export interface ProgressRow {
  top: number | string | null;
  id: number | null;
  name: string;
  engine_state: string | null;
  done: number;
  good: number;
  bad: number;
  spend: string;
}

export interface TotalsRow {
  cid: number;
  done: number;
  good: number;
  bad: number;
  spend: string;
}

const voiceActivity = (where: SQL) => sql`select campaign_id as cid,
    count(*) filter (where leg_type = ${LegType.A})::int as done,
    count(*) filter (where leg_type = ${LegType.A} and disposition = 'ANSWER')::int as good,
    count(*) filter (where leg_type = ${LegType.A} and disposition <> 'ANSWER')::int as bad,
    coalesce(sum(call_cost), 0)::text as spend
  from cdrs where ${where} group by campaign_id`;

const smsActivity = (where: SQL) => sql`select sms_campaign_id as cid,
    count(*) filter (where status <> ${SmsMessageStatus.Unsent})::int as done,
    count(*) filter (where status = ${SmsMessageStatus.Delivered})::int as good,
    count(*) filter (where status = ${SmsMessageStatus.Failed})::int as bad,
    coalesce(sum(cost), 0)::text as spend
  from sms_messages where ${where} group by sms_campaign_id`;

/** The one progress statement: the watermark row always comes back, joined to every START campaign. */
const progressSql = (campaigns: SQL, activity: SQL, topOf: SQL) => sql`with a as (${activity}), m as (${topOf})
  select m.top, c.id, c.name, c.engine_state, coalesce(a.done, 0) as done, coalesce(a.good, 0) as good,
    coalesce(a.bad, 0) as bad, coalesce(a.spend, '0') as spend
  from m left join ${campaigns} c on c.status = ${CampaignStatus.Start} left join a on a.cid = c.id order by c.id`;

/** Each kind's statements. */
const kinds: Record<ActivityKind, { campaigns: SQL; top: SQL; progress(after: number): SQL; totals(ids: SQL): SQL }> = {
  voice: {
    campaigns: sql`campaigns`,
    top: sql`select coalesce(max(id), 0) as top from cdrs`,
    progress: (after) => progressSql(sql`campaigns`, voiceActivity(sql`id > ${after}`), sql`select coalesce(max(id), ${after}) as top from cdrs where id > ${after}`),
    totals: (ids) => voiceActivity(sql`campaign_id = any(${ids})`),
  },
  sms: {
    campaigns: sql`sms_campaigns`,
    top: sql`select coalesce(max(id), 0) as top from sms_messages`,
    progress: (after) =>
      progressSql(sql`sms_campaigns`, smsActivity(sql`id > ${after} and sms_campaign_id is not null`), sql`select coalesce(max(id), ${after}) as top from sms_messages where id > ${after}`),
    totals: (ids) => smsActivity(sql`sms_campaign_id = any(${ids})`),
  },
};

/** The newest id of the kind's activity table (the first watermark). */
export async function activityTop(db: Db, kind: ActivityKind): Promise<number> {
  const [row] = await queryRows<{ top: number | string }>(db, kinds[kind].top);
  return Number(row?.top ?? 0);
}

/** Per START campaign: activity with id > `after` (done, good, bad, spend), and the newest id seen (`top`, on every row). */
export function progressSince(db: Db, kind: ActivityKind, after: number): Promise<ProgressRow[]> {
  return queryRows<ProgressRow>(db, kinds[kind].progress(after));
}

/** Per campaign in `ids`: its whole activity, for the end line. */
export function campaignTotals(db: Db, kind: ActivityKind, ids: number[]): Promise<TotalsRow[]> {
  return queryRows<TotalsRow>(db, kinds[kind].totals(intArray(ids)));
}

/** The campaigns `ids` (those still there): status, and engine_state (why an engine ended them). */
export function campaignStates(db: Db, kind: ActivityKind, ids: number[]): Promise<{ id: number; name: string; status: number; engine_state: string | null }[]> {
  return queryRows<{ id: number; name: string; status: number; engine_state: string | null }>(
    db,
    sql`select id, name, status, engine_state from ${kinds[kind].campaigns} where id = any(${intArray(ids)})`,
  );
}
