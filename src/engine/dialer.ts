/**
 * The dial rules (contract §5–§6): one transaction per campaign and pass locks the campaign row
 * (`for no key update skip locked`: engines sharing a PostgreSQL take turns on it, while outcomes
 * — whose CDRs reference the campaign — go on being written), checks the gateway,
 * the window and the owner's credit, works out how many calls may start (pace and caps), claims
 * due subscribers with `for update skip locked` (retries first, then by id), drops DNC hits
 * (NOT_AUTHORIZED) and inserts the callrequests (CALLING) — all committed before any dial.
 */
import crypto from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { queryRows } from '../db/database.ts';
import {
  CallRequestStatus,
  CampaignStatus,
  GatewayStatus,
  SubscriberStatus,
  callerids,
  campaigns,
  gateways,
  subscribers,
} from '../db/schema.ts';
import { doNotCallSql } from '../campaign/dnc.ts';
import type { EngineContext } from './context.ts';
import { ownerBlock } from './owner.ts';
import { datesBlock, subscriberWindowSql, windowBlock } from '../campaign/window.ts';

export type CampaignRow = typeof campaigns.$inferSelect;
export type GatewayRow = typeof gateways.$inferSelect;
type SubscriberRow = typeof subscribers.$inferSelect;

/** A call claimed and committed as a CALLING callrequest, ready to be dialled. */
export interface ClaimedCall {
  callrequestId: number;
  callUuid: string;
  subscriber: SubscriberRow;
  /** The number as the gateway wants it (removeprefix, then addprefix). */
  dialled: string;
  callerId: string;
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

/** Contract §6: the group's number whose areacode is the longest prefix of the number ('*' = any). */
export function pickCallerId(fallback: string, group: { areacode: string; callerid_num: string }[], number: string): string {
  const digits = number.replace(/\D/g, '');
  let best: { len: number; num: string } | undefined;
  for (const c of group) {
    const code = c.areacode.trim() === '*' ? '' : c.areacode.replace(/\D/g, '');
    if (c.areacode.trim() !== '*' && !code) continue;
    if (digits.startsWith(code) && (!best || code.length > best.len)) best = { len: code.length, num: c.callerid_num };
  }
  return best?.num ?? fallback;
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

/** Calls that may start now: pace, then max_aleg (when > 0) and the gateway's maximum_call. */
async function freeSlots(tx: Db, c: CampaignRow, gateway: GatewayRow, paceSlotCount: number, limit: number): Promise<number> {
  // Without a line cap nothing to count. The count reads callrequests_in_flight_idx (CALLING rows only).
  if (c.max_aleg <= 0 && gateway.maximum_call === null) return Math.min(paceSlotCount, limit);
  const [n] = await queryRows<{ campaign: number; gateway: number }>(
    tx,
    sql`select count(*) filter (where campaign_id = ${c.id})::int as campaign, count(*)::int as gateway
        from callrequests where status = ${CallRequestStatus.Calling} and gateway_id = ${gateway.id}`,
  );
  let slots = Math.min(paceSlotCount, limit);
  // Every dial_method honours max_aleg when > 0 (broadcast too): it bounds what a carrier sees.
  if (c.max_aleg > 0) slots = Math.min(slots, c.max_aleg - n.campaign);
  if (gateway.maximum_call !== null) slots = Math.min(slots, gateway.maximum_call - n.gateway);
  return Math.max(0, slots);
}

/** One SQL parameter holding a list of ids (`= any(…)`): no statement with thousands of parameters. */
const idArray = (ids: number[]) => sql`${`{${ids.join(',')}}`}::bigint[]`;

/** Claims (locks) up to `limit` due subscribers: due retries first, then new ones by id. */
async function claimSubscribers(tx: Db, ctx: EngineContext, c: CampaignRow, limit: number): Promise<number[]> {
  const now = ctx.clock.now().toISOString();
  const window = c.timezone_dialing ? subscriberWindowSql(c, ctx.clock.now(), ctx.config.timeZone) : sql`true`;
  const pick = (extra: ReturnType<typeof sql>, order: ReturnType<typeof sql>, n: number) =>
    queryRows<{ id: number }>(
      tx,
      sql`select s.id from subscribers s where s.campaign_id = ${c.id} and s.status = ${SubscriberStatus.Pending}
          and s.next_attempt_at <= ${now}::timestamptz and ${extra} and ${window}
          order by ${order} limit ${n} for update skip locked`,
    );
  const retries = await pick(sql`s.count_attempt > 0`, sql`s.next_attempt_at, s.id`, limit);
  const fresh = retries.length < limit ? await pick(sql`s.count_attempt = 0`, sql`s.id`, limit - retries.length) : [];
  return [...retries, ...fresh].map((r) => Number(r.id));
}

/** Marks the claimed subscribers on a DNC list NOT_AUTHORIZED (7); returns the ids left to dial. */
async function dropDoNotCall(tx: Db, c: CampaignRow, ids: number[]): Promise<number[]> {
  const hits = await queryRows<{ id: number }>(
    tx,
    sql`update subscribers s set status = ${SubscriberStatus.NotAuthorized}, reason = 'on a do-not-call list', updated_date = now()
        where s.id = any(${idArray(ids)}) and ${doNotCallSql(sql`s.duplicate_contact`, c.user_id, c.dnc_id)}
        returning s.id`,
  );
  const hit = new Set(hits.map((h) => Number(h.id)));
  return ids.filter((id) => !hit.has(id));
}

/** Marks the subscribers IN_PROCESS and inserts their CALLING callrequests (in claim order). */
async function startCalls(tx: Db, ctx: EngineContext, c: CampaignRow, gateway: GatewayRow, ids: number[]): Promise<ClaimedCall[]> {
  const group = c.callerid_group_id
    ? await tx.select().from(callerids).where(eq(callerids.callerid_group_id, c.callerid_group_id))
    : [];
  const now = ctx.clock.now().toISOString();
  const rows = await tx
    .update(subscribers)
    .set({ status: SubscriberStatus.InProcess, count_attempt: sql`${subscribers.count_attempt} + 1`, last_attempt: now, updated_date: now })
    .where(sql`${subscribers.id} = any(${idArray(ids)})`)
    .returning();
  const byId = new Map(rows.map((s) => [s.id, s]));
  const planned = ids.flatMap((id) => {
    const s = byId.get(id);
    if (!s) return [];
    return [{
      subscriber: s,
      callUuid: crypto.randomUUID(),
      dialled: gatewayNumber(gateway, s.duplicate_contact),
      callerId: pickCallerId(c.callerid, group, s.duplicate_contact),
      attempt: s.count_attempt,
    }];
  });
  const values = planned.map((p) => ({ subscriber_id: p.subscriber.id, call_uuid: p.callUuid, phone_number: p.subscriber.duplicate_contact, callerid: p.callerId, attempt: p.attempt }));
  const inserted = await queryRows<{ id: number; call_uuid: string }>(
    tx,
    sql`insert into callrequests (campaign_id, subscriber_id, status, call_uuid, phone_number, callerid, gateway_id, attempt, engine_id, call_time)
        select ${c.id}, v.subscriber_id, ${CallRequestStatus.Calling}, v.call_uuid, v.phone_number, v.callerid, ${gateway.id}, v.attempt,
          ${ctx.engineId}, ${now}::timestamptz
        from jsonb_to_recordset(${JSON.stringify(values)}::jsonb) as v(subscriber_id bigint, call_uuid text, phone_number text, callerid text, attempt int)
        returning id, call_uuid`,
  );
  const callIds = new Map(inserted.map((r) => [r.call_uuid, Number(r.id)]));
  return planned.map((p) => ({ ...p, callrequestId: callIds.get(p.callUuid) as number }));
}

/** Writes engine_state when it changed (a voice or SMS campaign read shows it as `dialing_state`), and the pace. */
export async function noteState(
  tx: Db,
  table: 'campaigns' | 'sms_campaigns',
  c: { id: number; engine_state: string | null },
  state: string,
  nextCallAt?: string,
): Promise<void> {
  if (c.engine_state === state && nextCallAt === undefined) return;
  await tx.execute(sql`update ${sql.identifier(table)} set engine_state = ${state},
      next_call_at = coalesce(${nextCallAt ?? null}::timestamptz, next_call_at) where id = ${c.id}`);
}

/**
 * One campaign's claim: the calls to dial now, committed as CALLING callrequests; at most
 * `limit` (the engine's room for calls in flight) and `maxPerPass`.
 */
export async function claimCalls(ctx: EngineContext, campaignId: number, options: { limit?: number } = {}): Promise<ClaimResult> {
  const limit = Math.max(0, Math.min(maxPerPass, options.limit ?? maxPerPass));
  return ctx.db.transaction(async (tx) => {
    const [c] = await tx
      .select()
      .from(campaigns)
      .where(and(eq(campaigns.id, campaignId), eq(campaigns.status, CampaignStatus.Start)))
      .for('no key update', { skipLocked: true });
    if (!c) return { calls: [] };
    const [gateway] = c.aleg_gateway_id ? await tx.select().from(gateways).where(eq(gateways.id, c.aleg_gateway_id)) : [];
    const reason = await blockReason(tx, ctx, c, gateway);
    if (reason) {
      await noteState(tx, 'campaigns', c, reason);
      return { campaign: c, gateway, calls: [] };
    }
    const pace = paceSlots(c.next_call_at, c.frequency, ctx.clock.now());
    const slots = pace.slots && limit ? await freeSlots(tx, c, gateway, pace.slots, limit) : 0;
    const claimed = slots ? await claimSubscribers(tx, ctx, c, slots) : [];
    const toDial = claimed.length ? await dropDoNotCall(tx, c, claimed) : [];
    const calls = toDial.length ? await startCalls(tx, ctx, c, gateway, toDial) : [];
    const next = calls.length ? new Date(pace.base + calls.length * pace.intervalMs).toISOString() : undefined;
    const state = slots === 0 && pace.slots > 0 ? 'dialing (all lines busy)' : pace.slots && !claimed.length ? 'idle (no subscriber due)' : 'dialing';
    await noteState(tx, 'campaigns', c, state, next);
    return { campaign: c, gateway, calls, more: slots === limit && pace.slots > limit && claimed.length === slots };
  });
}
