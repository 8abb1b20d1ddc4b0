/**
 * The dial rules (contract §5–§6): one transaction per campaign and pass locks the campaign row
 * (`for no key update skip locked`: engines sharing a PostgreSQL take turns on it, while outcomes
 * — whose CDRs reference the campaign — go on being written), checks the gateway,
 * the window and the owner's credit, works out how many calls may start (pace and caps), claims
 * due subscribers with `for update skip locked` (retries first, then by id), drops DNC hits
 * (NOT_AUTHORIZED), holds back those the contact caps or legal calling hours forbid now
 * (contact-gate.ts: they stay PENDING) and inserts the callrequests (CALLING) — all committed
 * before any dial.
 */
import crypto from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { DialMethod, GatewayStatus } from '../db/schema.ts';
import type { EngineContext } from './context.ts';
import { ownerBlock } from './owner.ts';
import { datesBlock, subscriberWindowSql, windowBlock } from '../campaign/window.ts';
import { pickCallerIds } from './callerid-rotation.ts';
import { callingLines, insertCallingCallrequests } from './store/callrequests.ts';
import { type CampaignRow, lockStartCampaign, noteState, noteWaiting } from './store/campaigns.ts';
import { voiceKind } from '../campaign/kinds.ts';
import { claimDueSubscribers } from './store/due-subscribers.ts';
import { holdBack } from './contact-gate.ts';
import { findGateway, type GatewayRow } from './store/gateways.ts';
import { markDoNotCall, markInProcess, type SubscriberRow } from './store/subscribers.ts';

export type { CampaignRow, GatewayRow };

/** A call claimed and committed as a CALLING callrequest, ready to be dialled. */
export interface ClaimedCall {
  callrequestId: number;
  callUuid: string;
  subscriber: SubscriberRow;
  /** The number as the gateway wants it (removeprefix, then addprefix). */
  dialled: string;
  callerId: string;
  /** The caller id group's number shown (callerid-rotation.ts); null: the campaign's callerid. */
  callerIdId: number | null;
  attempt: number;
}

export interface ClaimResult {
  campaign?: CampaignRow;
  gateway?: GatewayRow;
  calls: ClaimedCall[];
  /** The pass cap, not the pace or a line cap, stopped the claim: the next pass need not wait. */
  more?: boolean;
}

/**
 * At most this many calls start per campaign and pass, whatever the pace (keeps a pass's
 * transaction short); a pass that hits it is followed by another at once (engine.ts).
 */
export const maxPerPass = 500;
/** A pace lag longer than this (idle campaign, slow pass) restarts the pace at now: no burst. */
const maxCatchUpMs = 1000;

/** How many calls may start now by pace, and the base the next start time is counted from. */
export function paceSlots(nextCallAt: string | null, frequency: number, now: Date): { slots: number; base: number; intervalMs: number } {
  const intervalMs = 60_000 / Math.max(1, frequency);
  let base = nextCallAt ? new Date(nextCallAt).getTime() : now.getTime();
  if (base > now.getTime()) return { slots: 0, base, intervalMs };
  if (now.getTime() - base > Math.max(intervalMs, maxCatchUpMs)) base = now.getTime();
  return { slots: Math.floor((now.getTime() - base) / intervalMs) + 1, base, intervalMs };
}

/** The gateway's prefix rules on a number: removeprefix, then addprefix. */
export function gatewayNumber(gateway: Pick<GatewayRow, 'removeprefix' | 'addprefix'>, number: string): string {
  const stripped = gateway.removeprefix && number.startsWith(gateway.removeprefix) ? number.slice(gateway.removeprefix.length) : number;
  return gateway.addprefix + stripped;
}

/** Why the campaign may not dial now, before counting slots ('' = it may). */
async function blockReason(tx: Db, ctx: EngineContext, c: CampaignRow, gateway: GatewayRow | undefined): Promise<string> {
  if (!gateway) return 'no gateway';
  if (gateway.status !== GatewayStatus.Active) return 'gateway inactive';
  const now = ctx.clock.now();
  // A carrier's 503 Retry-After: no call is claimed (so none burns an attempt) until it passes.
  let paused: Date | null | undefined;
  try {
    paused = ctx.drivers(gateway).pausedUntil?.();
  } catch {
    paused = null; // a driver that cannot be built fails its calls in dial(), where it is logged
  }
  if (paused && paused > now) return `gateway paused by the carrier until ${paused.toISOString()}`;
  const reason = c.timezone_dialing ? datesBlock(c, now) : windowBlock(c, now, ctx.config.timeZone);
  if (reason) return reason;
  return ownerBlock(tx, c.user_id, 'call');
}

/**
 * Calls at once a campaign allows (contract §4 dial_method): max_aleg lines; power dialing (3)
 * places agent_dial_rate calls per line (the API refuses power without max_aleg and a rate > 0).
 */
export function lineCap(c: Pick<CampaignRow, 'max_aleg' | 'dial_method' | 'agent_dial_rate'>): number {
  if (c.dial_method !== DialMethod.Power) return c.max_aleg;
  return Math.max(1, Math.floor(c.max_aleg * Number(c.agent_dial_rate)));
}

/** Calls that may start now: pace, then max_aleg (when > 0; lineCap) and the gateway's maximum_call. */
async function freeSlots(tx: Db, c: CampaignRow, gateway: GatewayRow, paceSlotCount: number, limit: number): Promise<number> {
  // Without a line cap nothing to count. The count reads callrequests_in_flight_idx (CALLING rows only).
  if (c.max_aleg <= 0 && gateway.maximum_call === null) return Math.min(paceSlotCount, limit);
  const n = await callingLines(tx, c.id, gateway.id);
  let slots = Math.min(paceSlotCount, limit);
  // Every dial_method honours max_aleg when > 0 (broadcast too): it bounds what a carrier sees.
  if (c.max_aleg > 0) slots = Math.min(slots, lineCap(c) - n.campaign);
  if (gateway.maximum_call !== null) slots = Math.min(slots, gateway.maximum_call - n.gateway);
  return Math.max(0, slots);
}

/** Claims (locks) up to `limit` due subscribers (store/due-subscribers.ts), within their own windows if the campaign dials by time zone. */
function claimSubscribers(tx: Db, ctx: EngineContext, c: CampaignRow, limit: number): Promise<number[]> {
  const window = c.timezone_dialing ? subscriberWindowSql(c, ctx.clock.now(), ctx.config.timeZone) : sql`true`;
  return claimDueSubscribers(tx, 'voice', c.id, ctx.clock.now().toISOString(), limit, window);
}

/** Marks the claimed subscribers on a DNC list NOT_AUTHORIZED (7); returns the ids left to dial. */
async function dropDoNotCall(tx: Db, c: CampaignRow, ids: number[]): Promise<number[]> {
  const hits = await markDoNotCall(tx, ids, c.user_id, c.dnc_id);
  const hit = new Set(hits.map((h) => Number(h.id)));
  return ids.filter((id) => !hit.has(id));
}

/** Marks the subscribers IN_PROCESS and inserts their CALLING callrequests (in claim order). */
async function startCalls(tx: Db, ctx: EngineContext, c: CampaignRow, gateway: GatewayRow, ids: number[]): Promise<ClaimedCall[]> {
  const now = ctx.clock.now().toISOString();
  const rows = await markInProcess(tx, ids, now);
  const byId = new Map(rows.map((s) => [s.id, s]));
  const subs = ids.flatMap((id) => byId.get(id) ?? []);
  // Caller-id rotation (callerid-rotation.ts): one read and one count for the whole claim; numbers
  // by their key (contract §1: E.164 digits in the owner's country), so area codes are found
  // in numbers written nationally too.
  const callerIds = await pickCallerIds(tx, c, subs.map((s) => `+${s.phone_key}`), { now: ctx.clock.now(), timeZone: ctx.config.timeZone });
  const planned = subs.map((s, i) => ({
    subscriber: s,
    callUuid: crypto.randomUUID(),
    dialled: gatewayNumber(gateway, s.duplicate_contact),
    callerId: callerIds[i].num,
    callerIdId: callerIds[i].id,
    attempt: s.count_attempt,
  }));
  const values = planned.map((p) => ({
    subscriber_id: p.subscriber.id, call_uuid: p.callUuid, phone_number: p.subscriber.duplicate_contact, phone_key: p.subscriber.phone_key,
    callerid: p.callerId, callerid_id: p.callerIdId, attempt: p.attempt,
  }));
  const inserted = await insertCallingCallrequests(tx, { campaignId: c.id, gatewayId: gateway.id, engineId: ctx.engineId, now }, values);
  const callIds = new Map(inserted.map((r) => [r.call_uuid, Number(r.id)]));
  return planned.map((p) => ({ ...p, callrequestId: callIds.get(p.callUuid) as number }));
}

/**
 * One campaign's claim: the calls to dial now, committed as CALLING callrequests; at most
 * `limit` (the engine's room for calls in flight) and `maxPerPass`.
 */
export async function claimCalls(ctx: EngineContext, campaignId: number, options: { limit?: number } = {}): Promise<ClaimResult> {
  const limit = Math.max(0, Math.min(maxPerPass, options.limit ?? maxPerPass));
  return ctx.db.transaction(async (tx) => {
    const c = await lockStartCampaign(tx, campaignId);
    if (!c) return { calls: [] };
    const gateway = c.aleg_gateway_id ? await findGateway(tx, c.aleg_gateway_id) : undefined;
    const reason = await blockReason(tx, ctx, c, gateway);
    if (reason || !gateway) {
      // (no gateway is always a reason: blockReason says 'no gateway')
      await noteWaiting(tx, voiceKind, c, reason);
      return { campaign: c, gateway, calls: [] };
    }
    const pace = paceSlots(c.next_call_at, c.frequency, ctx.clock.now());
    const slots = pace.slots && limit ? await freeSlots(tx, c, gateway, pace.slots, limit) : 0;
    const claimed = slots ? await claimSubscribers(tx, ctx, c, slots) : [];
    const notDnc = claimed.length ? await dropDoNotCall(tx, c, claimed) : [];
    const toDial = notDnc.length ? await holdBack(tx, ctx, c, notDnc) : []; // contact caps, legal calling hours
    const calls = toDial.length ? await startCalls(tx, ctx, c, gateway, toDial) : [];
    const next = calls.length ? new Date(pace.base + calls.length * pace.intervalMs).toISOString() : undefined;
    const state = slots === 0 && pace.slots > 0 ? 'dialing (all lines busy)' : pace.slots && !claimed.length ? 'idle (no subscriber due)' : 'dialing';
    await noteState(tx, 'campaigns', c, state, next);
    return { campaign: c, gateway, calls, more: slots === limit && pace.slots > limit && claimed.length === slots };
  });
}
