/**
 * Crash recovery (issue 5 §11), for voice calls and SMS messages. An engine writes its id on the
 * callrequests it places and the sms_messages it claims, and beats a heartbeat row each pass.
 * "Dead" means: on embedded PGlite (one process per data directory) any engine but this one; on
 * PostgreSQL an engine whose heartbeat is older than `staleMs` by the database's clock (or that
 * never beat). So after a `kill -9` and a restart, PGlite recovers at once and PostgreSQL within
 * `staleMs` (ENGINE_STALE_SECONDS). Both kinds find a dead engine's rows with the one predicate
 * (store/heartbeats.ts deadEngine).
 *
 * What is done with those rows stays two functions, because it differs in substance:
 * - a CALLING callrequest is closed as a FAILURE with hangup_cause ENGINE_RESTART and an A-leg
 *   CDR with billsec 0; its subscriber goes back to PENDING or to FAIL by the retry policy
 *   (through the same outcome transaction as any call, one per orphan, at most 1000 a run);
 * - an 'unsent' SMS message becomes failed ENGINE_RESTART through the same statement as a
 *   driver's answers (no CDR, no charge), in batches of 1000 until none is left. Such a message is
 *   never sent again: a retry is a new message (the next attempt).
 * Each then puts back PENDING the subscribers left IN_PROCESS with nothing in flight (a
 * hand-edited row): for voice in every campaign, for SMS in START or PAUSE campaigns.
 */
import { failedHangup } from './call.ts';
import type { EngineContext } from './context.ts';
import { recordOutcome } from './outcome.ts';
import { recordResults } from './sms/record.ts';
import { findOrphanCalls } from './store/callrequests.ts';
import { beat as writeBeat, type DeadEngines, deadEngine } from './store/heartbeats.ts';
import { findUnsentOrphans } from './store/sms-messages.ts';
import { releaseStrandedSmsSubscribers } from './store/sms-subscribers.ts';
import { releaseStrandedSubscribers } from './store/subscribers.ts';

export const restartCause = 'ENGINE_RESTART';
export type { DeadEngines };

/** Writes this engine's heartbeat. */
export async function beat(ctx: EngineContext): Promise<void> {
  await writeBeat(ctx.db, ctx.engineId);
}

/**
 * Closes the calls left CALLING by dead engines; returns how many. Each is closed only if its
 * engine is still dead then: one back meanwhile (its heartbeat through again) keeps its calls,
 * and may be placing them (engine.ts stillOurs).
 */
export async function recoverOrphans(ctx: EngineContext, opts: DeadEngines): Promise<number> {
  // The predicate is evaluated by each statement: at the find, and again at each close.
  const dead = deadEngine('r.engine_id', ctx.engineId, opts);
  const orphans = await findOrphanCalls(ctx.db, dead);
  let closed = 0;
  for (const o of orphans) {
    const at = o.call_time ? new Date(o.call_time) : ctx.clock.now();
    const written = await recordOutcome(
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
      dead,
    );
    if (written) closed++;
  }
  await releaseStrandedSubscribers(ctx.db);
  if (closed) ctx.log.warn(`closed ${closed} call(s) left in flight by a stopped engine (${restartCause})`);
  return closed;
}

/** Settles the messages left 'unsent' by dead engines (still dead then) as failed ENGINE_RESTART (retried by the policy); returns how many. */
export async function recoverSmsOrphans(ctx: EngineContext, opts: DeadEngines): Promise<number> {
  const dead = deadEngine('m.engine_id', ctx.engineId, opts);
  let total = 0;
  for (;;) {
    const orphans = await findUnsentOrphans(ctx.db, dead);
    if (!orphans.length) break;
    const results = orphans.map((o) => ({ messageId: Number(o.id), ok: false as const, error: restartCause, retry: true }));
    total += await recordResults(ctx.db, results, ctx.clock.now(), dead);
    if (orphans.length < 1000) break;
  }
  await releaseStrandedSmsSubscribers(ctx.db);
  if (total) ctx.log.warn(`settled ${total} SMS message(s) left unsent by a stopped engine (${restartCause})`);
  return total;
}
