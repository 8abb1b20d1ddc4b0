/**
 * The SMS claim (contract §5, the voice dialer's rules): one transaction per campaign and batch
 * locks the campaign (`for update skip locked`), checks the SMS gateway, the window and the
 * owner's credit, counts the pace (paceSlots, `frequency` per minute), claims due subscribers
 * (retries first) with `for update skip locked`, marks DNC hits NOT_AUTHORIZED, renders the texts
 * and inserts their sms_messages 'unsent' (parts, cost) with this engine's id, subscribers
 * IN_PROCESS — all committed before any message is handed to a driver.
 */
import type { Db } from '../../db/database.ts';
import { GatewayStatus } from '../../db/schema.ts';
import { UNPACED_FREQUENCY } from '../../campaign/pace.ts';
import type { EngineContext } from '../context.ts';
import { paceSlots } from '../dialer.ts';
import { smsParts } from '../../drivers/sms/encoding.ts';
import { ownerBlock } from '../owner.ts';
import { windowBlock } from '../../campaign/window.ts';
import { noteState, noteWaiting } from '../store/campaigns.ts';
import { smsKind } from '../../campaign/kinds.ts';
import { smsTextOf } from '../../campaign/sms-text.ts';
import { claimDueSubscribers } from '../store/due-subscribers.ts';
import { findSmsGateway, type SmsGatewayRow } from '../store/gateways.ts';
import { lockStartSmsCampaign, type SmsCampaignRow } from '../store/sms-campaigns.ts';
import { insertCampaignMessages } from '../store/sms-messages.ts';
import { markSmsDoNotCall, markSmsInProcess, type SmsSubscriberRow as SubscriberRow, smsSubscribersByIds } from '../store/sms-subscribers.ts';
import { affordableMessages } from '../store/users.ts';
import { renderSms } from './render.ts';

export type { SmsCampaignRow, SmsGatewayRow };

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
  const n = await affordableMessages(tx, userId);
  return n === null || n === undefined ? maxPerBatch : Math.max(0, Number(n));
}

/** Claims up to `limit` due subscribers (store/due-subscribers.ts, as voice: due retries first, then new ones by id); their rows in claim order. */
async function claimSubscribers(tx: Db, c: SmsCampaignRow, now: string, limit: number): Promise<SubscriberRow[]> {
  const ids = await claimDueSubscribers(tx, 'sms', c.id, now, limit);
  if (!ids.length) return [];
  const rows = await smsSubscribersByIds(tx, ids);
  const order = new Map(ids.map((id, i) => [id, i]));
  return rows.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}

/** Marks the claimed subscribers on a DNC list NOT_AUTHORIZED (7); returns the ids hit. */
async function dropDoNotCall(tx: Db, c: SmsCampaignRow, ids: number[]): Promise<Set<number>> {
  const hits = await markSmsDoNotCall(tx, ids, c.user_id);
  return new Set(hits.map((h) => Number(h.id)));
}

/** Inserts the 'unsent' messages (text, parts, cost = sms_rate × parts) and marks the subscribers IN_PROCESS. */
async function insertMessages(tx: Db, ctx: EngineContext, c: SmsCampaignRow, gateway: SmsGatewayRow, subs: SubscriberRow[]): Promise<ClaimedMessage[]> {
  const now = ctx.clock.now().toISOString();
  const body = await smsTextOf(tx, c); // text_message, else the SMS template's (issue 17)
  const planned = subs.map((s) => {
    const text = renderSms(body, s.full_name, s.additional_vars);
    return { sub_id: s.id, content: text, parts: smsParts(text).parts };
  });
  const inserted = await insertCampaignMessages(tx, c, { gatewayId: gateway.id, engineId: ctx.engineId }, planned);
  await markSmsInProcess(tx, subs.map((s) => s.id), now);
  const byId = new Map(subs.map((s, i) => [s.id, { s, text: planned[i].content }]));
  return inserted.map((r) => {
    const p = byId.get(Number(r.sub)) as { s: SubscriberRow; text: string };
    return { messageId: Number(r.id), subscriberId: p.s.id, to: p.s.duplicate_contact, text: p.text };
  });
}

/** One campaign's claim: the messages to send now, committed 'unsent'. */
export async function claimMessages(ctx: EngineContext, campaignId: number): Promise<SmsClaim> {
  return ctx.db.transaction(async (tx) => {
    const c = await lockStartSmsCampaign(tx, campaignId);
    if (!c) return { messages: [] };
    const gateway = c.sms_gateway_id ? await findSmsGateway(tx, c.sms_gateway_id) : undefined;
    const reason = await blockReason(tx, ctx, c, gateway);
    if (reason || !gateway) {
      // (no gateway is always a reason: blockReason says 'no sms gateway')
      await noteWaiting(tx, smsKind, c, reason);
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
