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
 *
 * The same two close a live engine's own rows that it claimed and never learnt it had (a claim
 * whose answer was lost with its connection), as CLAIM_LOST: recoverLostClaims and
 * recoverLostSmsClaims.
 */
import { type SQL, sql } from 'drizzle-orm';
import { failedHangup } from './call.ts';
import type { EngineContext } from './context.ts';
import { recordOutcome } from './outcome.ts';
import { recordResults } from './sms/record.ts';
import { findOrphanCalls } from './store/callrequests.ts';
import { beat as writeBeat, type DeadEngines, deadEngine } from './store/heartbeats.ts';
import { findUnsentOrphans } from './store/sms-messages.ts';
import { releaseStrandedSmsSubscribers } from './store/sms-subscribers.ts';
import { releaseStrandedSubscribers } from './store/subscribers.ts';
import { idArray } from '../db/sql.ts';

export const restartCause = 'ENGINE_RESTART';
/** The cause of a call or message this engine claimed, and never learnt it had (recoverLostClaims). */
export const lostClaimCause = 'CLAIM_LOST';
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
  const closed = await closeCalls(ctx, deadEngine('r.engine_id', ctx.engineId, opts), restartCause);
  await releaseStrandedSubscribers(ctx.db);
  if (closed) ctx.log.warn(`closed ${closed} call(s) left in flight by a stopped engine (${restartCause})`);
  return closed;
}

/**
 * Closes this engine's own calls that it claimed and never dialled: CALLING, its engine id on
 * them, and not among `known` (the calls it has in flight, or placed and could not record).
 * That is a claim whose commit went through while its answer was lost with the connection (a
 * PostgreSQL restart or a network cut between the two): the engine never learnt it had those
 * calls, so it never placed them, and without this they stayed CALLING (their subscribers
 * IN_PROCESS, the campaign never done) until the next start's recovery. They are closed as a
 * failure, CLAIM_LOST, and retried by the policy like ENGINE_RESTART. The caller makes sure no
 * claim is under way meanwhile (engine.ts recover: between passes), else a claim committed and
 * not yet answered would be taken for lost.
 */
export async function recoverLostClaims(ctx: EngineContext, known: number[]): Promise<number> {
  const closed = await closeCalls(ctx, sql`r.engine_id = ${ctx.engineId} and not r.id = any(${idArray(known)})`, lostClaimCause);
  if (closed) ctx.log.warn(`closed ${closed} call(s) this engine claimed and never placed: the claim's answer was lost with its connection (${lostClaimCause})`);
  return closed;
}

/** Closes the CALLING calls where `onlyIf` holds (at the find, and again at each close) as failed `cause`, 1000 at most; returns how many. */
async function closeCalls(ctx: EngineContext, onlyIf: SQL, cause: string): Promise<number> {
  const orphans = await findOrphanCalls(ctx.db, onlyIf);
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
        hangup: { ...failedHangup(at, cause), endedAt: ctx.clock.now() },
        amd: 'none',
        results: [],
        transfers: [],
        completed: false,
        causeName: cause,
      },
      ctx.config.billingIncrement,
      onlyIf,
    );
    if (written) closed++;
  }
  return closed;
}

/** Settles the messages left 'unsent' by dead engines (still dead then) as failed ENGINE_RESTART (retried by the policy); returns how many. */
export async function recoverSmsOrphans(ctx: EngineContext, opts: DeadEngines): Promise<number> {
  const total = await failUnsent(ctx, deadEngine('m.engine_id', ctx.engineId, opts), restartCause);
  await releaseStrandedSmsSubscribers(ctx.db);
  if (total) ctx.log.warn(`settled ${total} SMS message(s) left unsent by a stopped engine (${restartCause})`);
  return total;
}

/**
 * recoverLostClaims for SMS campaigns: this engine's own 'unsent' campaign messages not among
 * `known` (those it claimed and has not recorded) were claimed by a commit whose answer was lost,
 * and never sent: failed CLAIM_LOST and retried by the policy. The caller makes sure no claim is
 * under way. Messages sent from a call or an alarm are not claimed, and not looked at here: they
 * are under way while the engine runs.
 */
export async function recoverLostSmsClaims(ctx: EngineContext, known: number[]): Promise<number> {
  const mine = sql`m.engine_id = ${ctx.engineId} and m.sms_subscriber_id is not null and not m.id = any(${idArray(known)})`;
  const total = await failUnsent(ctx, mine, lostClaimCause);
  if (total) ctx.log.warn(`settled ${total} SMS message(s) this engine claimed and never sent: the claim's answer was lost with its connection (${lostClaimCause})`);
  return total;
}

/**
 * A lone SMS (sms/send-one.ts: from a call, or an appointment reminder) is inserted 'unsent' by
 * this engine and settled before its call goes on, or within the pass that fires its reminder.
 * One still 'unsent' once its call is no longer among `callsUp` (or, a reminder's, between
 * passes) was inserted by a commit whose answer was lost: nothing was sent with that row. Failed
 * CLAIM_LOST (free; not retried). The caller runs this between passes: a call placed after
 * `callsUp` was taken would not be among them.
 */
export async function recoverLostLoneSms(ctx: EngineContext, callsUp: number[]): Promise<number> {
  const mine = sql`m.engine_id = ${ctx.engineId} and m.sms_subscriber_id is null and (m.callrequest_id is null or not m.callrequest_id = any(${idArray(callsUp)}))`;
  const total = await failUnsent(ctx, mine, lostClaimCause);
  if (total) ctx.log.warn(`settled ${total} SMS message(s) of a call or a reminder this engine inserted and never sent: the insert's answer was lost with its connection (${lostClaimCause})`);
  return total;
}

/** Settles the 'unsent' messages where `onlyIf` holds (at the find, and again at the settle) as failed `cause`, to be retried; returns how many. */
async function failUnsent(ctx: EngineContext, onlyIf: SQL, cause: string): Promise<number> {
  let total = 0;
  for (;;) {
    const orphans = await findUnsentOrphans(ctx.db, onlyIf);
    if (!orphans.length) break;
    const results = orphans.map((o) => ({ messageId: Number(o.id), ok: false as const, error: cause, retry: true }));
    total += await recordResults(ctx.db, results, ctx.clock.now(), onlyIf);
    if (orphans.length < 1000) break;
  }
  return total;
}
