/**
 * The SMS claim (contract §5, the voice dialer's rules): one transaction per campaign and batch
 * locks the campaign (`for update skip locked`), checks the SMS gateway, the window and the
 * owner's credit, counts the pace (paceSlots, `frequency` per minute), claims due subscribers
 * (retries first) with `for update skip locked`, marks DNC hits NOT_AUTHORIZED, renders the texts
 * and inserts their sms_messages 'unsent' (parts, cost) with this engine's id, subscribers
 * IN_PROCESS — all committed before any message is handed to a driver.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { CampaignStatus, GatewayStatus, smsCampaigns, smsGateways, smsSubscribers, SmsSubscriberStatus } from '../../db/schema.ts';
import { doNotCallSql } from '../../campaign/dnc.ts';
import { UNPACED_FREQUENCY } from '../../campaign/pace.ts';
import type { EngineContext } from '../context.ts';
import { noteState, paceSlots } from '../dialer.ts';
import { smsParts } from '../../drivers/sms/encoding.ts';
import { ownerBlock } from '../owner.ts';
import { windowBlock } from '../../campaign/window.ts';
import { renderSms } from './render.ts';

export type SmsCampaignRow = typeof smsCampaigns.$inferSelect;
export type SmsGatewayRow = typeof smsGateways.$inferSelect;
type SubscriberRow = typeof smsSubscribers.$inferSelect;

/** A message committed 'unsent', ready for the driver. */
export interface ClaimedMessage {
  messageId: number;
  subscriberId: number;
  to: string;
  text: string;
}

export interface SmsClaim {
  campaign?: SmsCampaignRow;
  gateway?: SmsGatewayRow;
  messages: ClaimedMessage[];
}

/** At most this many messages per campaign and batch (bounds memory and transaction size). */
export const maxPerBatch = 500;

/** Why the campaign may not send now ('' = it may). */
async function blockReason(tx: Db, ctx: EngineContext, c: SmsCampaignRow, gateway: SmsGatewayRow | undefined): Promise<string> {
  if (!gateway) return 'no sms gateway';
  if (gateway.status !== GatewayStatus.Active) return 'gateway inactive';
  const reason = windowBlock(c, ctx.clock.now(), ctx.config.timeZone);
  if (reason) return reason;
  return ownerBlock(tx, c.user_id, 'sms');
}

/** With a rate, no more messages than the balance pays for (each is at least one part). */
async function affordable(tx: Db, userId: number): Promise<number> {
  const [u] = await queryRows<{ n: number | null }>(
    tx,
    sql`select case when sms_rate > 0 then ceil(balance / sms_rate)::int end as n from users where id = ${userId}`,
  );
  return u?.n === null || u?.n === undefined ? maxPerBatch : Math.max(0, Number(u.n));
}

/** Claims up to `limit` due subscribers: due retries first, then new ones by id. */
async function claimSubscribers(tx: Db, c: SmsCampaignRow, now: string, limit: number): Promise<SubscriberRow[]> {
  const pick = (extra: ReturnType<typeof sql>, order: ReturnType<typeof sql>, n: number) =>
    queryRows<{ id: number }>(
      tx,
      sql`select s.id from sms_subscribers s where s.sms_campaign_id = ${c.id} and s.status = ${SmsSubscriberStatus.Pending}
          and s.next_attempt_at <= ${now}::timestamptz and ${extra}
          order by ${order} limit ${n} for update skip locked`,
    );
  const retries = await pick(sql`s.count_attempt > 0`, sql`s.next_attempt_at, s.id`, limit);
  const fresh = retries.length < limit ? await pick(sql`s.count_attempt = 0`, sql`s.id`, limit - retries.length) : [];
  const ids = [...retries, ...fresh].map((r) => Number(r.id));
  if (!ids.length) return [];
  const rows = await tx.select().from(smsSubscribers).where(inArray(smsSubscribers.id, ids));
  const order = new Map(ids.map((id, i) => [id, i]));
  return rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}

/** Marks the claimed subscribers on a DNC list NOT_AUTHORIZED (7); returns the ids hit. */
async function dropDoNotCall(tx: Db, c: SmsCampaignRow, ids: number[]): Promise<Set<number>> {
  // SMS campaigns have no list of their own: the owner's global lists and the admins' apply.
  const hits = await queryRows<{ id: number }>(
    tx,
    sql`update sms_subscribers s set status = ${SmsSubscriberStatus.NotAuthorized}, reason = 'on a do-not-call list', updated_date = now()
        where s.id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)}) and ${doNotCallSql(sql`s.duplicate_contact`, c.user_id, null)}
        returning s.id`,
  );
  return new Set(hits.map((h) => Number(h.id)));
}

/** Inserts the 'unsent' messages (text, parts, cost = sms_rate × parts) and marks the subscribers IN_PROCESS. */
async function insertMessages(tx: Db, ctx: EngineContext, c: SmsCampaignRow, gateway: SmsGatewayRow, subs: SubscriberRow[]): Promise<ClaimedMessage[]> {
  const now = ctx.clock.now().toISOString();
  const planned = subs.map((s) => {
    const text = renderSms(c.text_message, s.full_name, s.additional_vars);
    return { sub_id: s.id, content: text, parts: smsParts(text).parts };
  });
  const inserted = await queryRows<{ id: number; sub: number }>(
    tx,
    sql`insert into sms_messages (sms_campaign_id, sms_subscriber_id, user_id, sms_gateway_id, recipient_number, sender_number,
          content, parts, cost, attempt, engine_id)
        select ${c.id}, s.id, ${c.user_id}, ${gateway.id}, s.duplicate_contact, ${c.callerid}, p.content, p.parts,
          round(u.sms_rate * p.parts, 5), s.count_attempt + 1, ${ctx.engineId}
        from jsonb_to_recordset(${JSON.stringify(planned)}::jsonb) as p(sub_id bigint, content text, parts int)
        join sms_subscribers s on s.id = p.sub_id join users u on u.id = ${c.user_id}
        returning id, sms_subscriber_id as sub`,
  );
  await tx
    .update(smsSubscribers)
    .set({ status: SmsSubscriberStatus.InProcess, count_attempt: sql`${smsSubscribers.count_attempt} + 1`, last_attempt: now, updated_date: now })
    .where(inArray(smsSubscribers.id, subs.map((s) => s.id)));
  const byId = new Map(subs.map((s, i) => [s.id, { s, text: planned[i].content }]));
  return inserted.map((r) => {
    const p = byId.get(Number(r.sub)) as { s: SubscriberRow; text: string };
    return { messageId: Number(r.id), subscriberId: p.s.id, to: p.s.duplicate_contact, text: p.text };
  });
}

/** One campaign's claim: the messages to send now, committed 'unsent'. */
export async function claimMessages(ctx: EngineContext, campaignId: number): Promise<SmsClaim> {
  return ctx.db.transaction(async (tx) => {
    const [c] = await tx
      .select()
      .from(smsCampaigns)
      .where(and(eq(smsCampaigns.id, campaignId), eq(smsCampaigns.status, CampaignStatus.Start)))
      .for('update', { skipLocked: true });
    if (!c) return { messages: [] };
    const [gateway] = c.sms_gateway_id ? await tx.select().from(smsGateways).where(eq(smsGateways.id, c.sms_gateway_id)) : [];
    const reason = await blockReason(tx, ctx, c, gateway);
    if (reason) {
      await noteState(tx, 'sms_campaigns', c, reason);
      return { campaign: c, gateway, messages: [] };
    }
    const now = ctx.clock.now();
    const unpaced = c.frequency >= UNPACED_FREQUENCY;
    const pace = paceSlots(c.next_call_at, c.frequency, now);
    const slots = Math.min(unpaced ? maxPerBatch : pace.slots, maxPerBatch, await affordable(tx, c.user_id));
    const claimed = slots ? await claimSubscribers(tx, c, now.toISOString(), slots) : [];
    const hit = claimed.length ? await dropDoNotCall(tx, c, claimed.map((s) => s.id)) : new Set<number>();
    const toSend = claimed.filter((s) => !hit.has(s.id));
    const messages = toSend.length ? await insertMessages(tx, ctx, c, gateway, toSend) : [];
    const next = messages.length && !unpaced ? new Date(pace.base + messages.length * pace.intervalMs).toISOString() : undefined;
    await noteState(tx, 'sms_campaigns', c, (unpaced || pace.slots) && !claimed.length ? 'idle (no subscriber due)' : 'sending', next);
    return { campaign: c, gateway, messages };
  });
}
