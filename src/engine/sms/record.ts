/**
 * Recording what the drivers answered (contract §5–§6), many messages in ONE statement (each
 * message's writes are atomic together because the whole batch is): the message becomes 'sent'
 * (gateway id, send_date) and its cost = sms_rate × parts is charged to the owner's balance in
 * SQL numeric, the subscriber COMPLETE; or the message 'failed' (error, cost 0: a failed send is
 * not charged) and the subscriber PENDING again after `intervalretry` while attempts remain
 * (1 + maxretry in all), else FAIL. A delivery report may arrive before this (a fast gateway):
 * a message whose status a report already changed was sent, and keeps the report's status.
 * A message is recorded once: recording clears its engine_id, and only rows with one are taken.
 * Crash recovery settles a dead engine's unsent messages the same way, as failed ENGINE_RESTART.
 */
import { sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { CampaignStatus, SmsSubscriberStatus } from '../../db/schema.ts';
import type { SubmitResult } from '../../drivers/sms/driver.ts';
import type { EngineContext } from '../context.ts';

export const smsRestartError = 'ENGINE_RESTART';

export type SendResult = { messageId: number } & SubmitResult;

const S = SmsSubscriberStatus;

/** Records a batch of driver answers at `at`; returns how many messages were recorded. */
export async function recordResults(db: Db, results: SendResult[], at: Date): Promise<number> {
  if (!results.length) return 0;
  const rows = results.map((r) =>
    r.ok ? { id: r.messageId, ok: true, gid: r.gatewayMessageId, error: '', retry: false } : { id: r.messageId, ok: false, gid: '', error: r.error, retry: r.retry },
  );
  const now = sql`${at.toISOString()}::timestamptz`;
  const [row] = await queryRows<{ n: number }>(
    db,
    sql`with r as (
          select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(id bigint, ok boolean, gid text, error text, retry boolean)
        ), m as (
          update sms_messages m set
            status = case when m.status <> 'unsent' then m.status when r.ok then 'sent' else 'failed' end,
            gateway_message_id = case when r.ok then left(r.gid, 100) else m.gateway_message_id end,
            send_date = case when r.ok or m.status <> 'unsent' then ${now} end,
            cost = case when r.ok or m.status <> 'unsent' then m.cost else 0 end,
            error = case when r.ok or m.status <> 'unsent' then m.error else left(r.error, 200) end,
            engine_id = '', updated_date = now()
          from r where m.id = r.id and m.engine_id <> ''
          returning m.id, m.user_id, m.sms_campaign_id, m.sms_subscriber_id, m.cost, m.send_date is not null as sent, r.retry, m.error
        ), bill as (
          update users u set balance = u.balance - t.total
          from (select user_id, sum(cost) as total from m where sent group by user_id) t
          where u.id = t.user_id and t.total > 0
        ), subs as (
          update sms_subscribers s set updated_date = now(),
            status = case when m.sent then ${S.Complete}::int
                          when c.status = ${CampaignStatus.Abort} then ${S.Abort}::int
                          when m.retry and s.count_attempt < 1 + c.maxretry then ${S.Pending}::int
                          else ${S.Fail}::int end,
            next_attempt_at = case when m.sent then s.next_attempt_at else ${now} + c.intervalretry * interval '1 second' end,
            reason = case when m.sent then ''
                          when m.retry and s.count_attempt < 1 + c.maxretry then m.error
                          else left('no attempt left (last: ' || m.error || ')', 200) end
          from m join sms_campaigns c on c.id = m.sms_campaign_id
          where s.id = m.sms_subscriber_id and s.status = ${S.InProcess}
        )
        select count(*)::int as n from m`,
  );
  return Number(row?.n ?? 0);
}

/**
 * Settles the messages left 'unsent' by dead engines (issue 5 §11's rule for calls): on embedded
 * PGlite any engine but this one; on PostgreSQL one whose heartbeat is older than `staleMs`.
 * They become failed ENGINE_RESTART and their subscribers are retried by the policy. Such a
 * message is never sent again: a retry is a new message (the next attempt). Returns how many.
 */
export async function recoverSmsOrphans(ctx: EngineContext, opts: { anyOtherEngine: boolean; staleMs: number }): Promise<number> {
  const staleBefore = new Date(ctx.clock.now().getTime() - opts.staleMs).toISOString();
  const dead = opts.anyOtherEngine
    ? sql`m.engine_id <> ${ctx.engineId}`
    : sql`m.engine_id <> ${ctx.engineId} and not exists (select 1 from engine_heartbeats h
          where h.engine_id = m.engine_id and h.heartbeat_at >= ${staleBefore}::timestamptz)`;
  let total = 0;
  for (;;) {
    const orphans = await queryRows<{ id: number }>(
      ctx.db,
      sql`select m.id from sms_messages m where m.engine_id <> '' and ${dead} order by m.id limit 1000`,
    );
    if (!orphans.length) break;
    const results = orphans.map((o) => ({ messageId: Number(o.id), ok: false as const, error: smsRestartError, retry: true }));
    total += await recordResults(ctx.db, results, ctx.clock.now());
    if (orphans.length < 1000) break;
  }
  // A subscriber IN_PROCESS without a message in flight (a hand-edited row): back to PENDING.
  await ctx.db.execute(sql`update sms_subscribers s set status = ${S.Pending}
    where s.sms_campaign_id in (select id from sms_campaigns where status in (${CampaignStatus.Start}, ${CampaignStatus.Pause}))
      and s.status = ${S.InProcess} and not exists (select 1 from sms_messages m
      where m.sms_subscriber_id = s.id and m.engine_id <> '')`);
  if (total) ctx.log.warn(`settled ${total} SMS message(s) left unsent by a stopped engine (${smsRestartError})`);
  return total;
}
