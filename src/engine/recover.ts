/**
 * Crash recovery (issue 5 §11). An engine writes its id on the callrequests it places and beats
 * a heartbeat row each pass. A CALLING callrequest whose engine is dead is closed as a FAILURE
 * with hangup_cause ENGINE_RESTART and an A-leg CDR with billsec 0; its subscriber goes back to
 * PENDING or to FAIL by the retry policy (through the same outcome transaction as any call).
 * "Dead" means: on embedded PGlite (one process per data directory) any engine but this one; on
 * PostgreSQL an engine whose heartbeat is older than `staleMs` (or that never beat). So after a
 * `kill -9` and a restart, PGlite recovers at once and PostgreSQL within `staleMs`.
 */
import { sql } from 'drizzle-orm';
import { queryRows } from '../db/database.ts';
import { CallRequestStatus, SubscriberStatus } from '../db/schema.ts';
import { failedHangup } from './call.ts';
import type { EngineContext } from './context.ts';
import { recordOutcome } from './outcome.ts';

export const restartCause = 'ENGINE_RESTART';

/** Writes this engine's heartbeat. */
export async function beat(ctx: EngineContext): Promise<void> {
  await ctx.db.execute(sql`insert into engine_heartbeats (engine_id, heartbeat_at) values (${ctx.engineId}, ${ctx.clock.now().toISOString()}::timestamptz)
    on conflict (engine_id) do update set heartbeat_at = excluded.heartbeat_at`);
}

interface Orphan {
  id: number;
  call_uuid: string;
  campaign_id: number;
  user_id: number;
  subscriber_id: number | null;
  contact_id: number | null;
  phone_number: string;
  callerid: string;
  call_time: string | null;
}

/** Closes the calls left CALLING by dead engines; returns how many. */
export async function recoverOrphans(ctx: EngineContext, opts: { anyOtherEngine: boolean; staleMs: number }): Promise<number> {
  const staleBefore = new Date(ctx.clock.now().getTime() - opts.staleMs).toISOString();
  const dead = opts.anyOtherEngine
    ? sql`r.engine_id <> ${ctx.engineId}`
    : sql`r.engine_id <> ${ctx.engineId} and not exists (select 1 from engine_heartbeats h
          where h.engine_id = r.engine_id and h.heartbeat_at >= ${staleBefore}::timestamptz)`;
  const orphans = await queryRows<Orphan>(
    ctx.db,
    sql`select r.id, r.call_uuid, r.campaign_id, c.user_id, r.subscriber_id, s.contact_id, r.phone_number, r.callerid, r.call_time
        from callrequests r join campaigns c on c.id = r.campaign_id left join subscribers s on s.id = r.subscriber_id
        where r.status = ${CallRequestStatus.Calling} and ${dead} order by r.id limit 1000`,
  );
  for (const o of orphans) {
    const at = o.call_time ? new Date(o.call_time) : ctx.clock.now();
    await recordOutcome(
      ctx.db,
      {
        callrequestId: Number(o.id),
        callUuid: o.call_uuid,
        campaignId: o.campaign_id,
        userId: o.user_id,
        subscriberId: Number(o.subscriber_id ?? 0),
        contactId: o.contact_id,
        phoneNumber: o.phone_number,
        callerId: o.callerid,
        hangup: { ...failedHangup(at, restartCause), endedAt: ctx.clock.now() },
        amd: 'none',
        results: [],
        transfers: [],
        completed: false,
        causeName: restartCause,
      },
      ctx.config.billingIncrement,
    );
  }
  // A subscriber IN_PROCESS with no CALLING callrequest (crash between writes is impossible —
  // they share a transaction — but a hand-edited row is not): back to PENDING. Looked up per
  // campaign, so the (campaign_id, status) index answers it instead of a scan of every subscriber.
  await ctx.db.execute(sql`update subscribers s set status = ${SubscriberStatus.Pending}
    where s.campaign_id in (select id from campaigns) and s.status = ${SubscriberStatus.InProcess}
      and not exists (select 1 from callrequests r
      where r.subscriber_id = s.id and r.status = ${CallRequestStatus.Calling})`);
  if (orphans.length) ctx.log.warn(`closed ${orphans.length} call(s) left in flight by a stopped engine (${restartCause})`);
  return orphans.length;
}
