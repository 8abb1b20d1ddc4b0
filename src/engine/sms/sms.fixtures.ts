/**
 * Rows and drivers for the SMS engine tests, inserted directly (the engine reads tables, not the
 * API): a user with an SMS rate, an SMS gateway, a START SMS campaign, its subscribers; a
 * scripted SMS driver (submit answers chosen per message) beside the real simulator; an engine
 * with a ManualClock. Each scenario ends the SMS campaigns earlier ones left START, so that a
 * test's engine sees only its own campaign.
 */
import { asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { CampaignStatus, smsCampaigns, smsGateways, smsMessages, smsSubscribers } from '../../db/schema.ts';
import { type TestUser, makeEngine, makeSmsGateway, makeUser, unique } from '../../../test/factories.ts';
import { ManualClock } from '../../clock.ts';
import type { Engine } from '../engine.ts';
import type { SmsDriver, SmsEvents, SmsSubmit, SubmitResult } from '../../drivers/sms/driver.ts';
import { createSmsDriver } from '../../drivers/sms/index.ts';
import { smsEvents } from '../../campaign/sms-events.ts';
import { phoneKey } from '../../http/phone.ts';

const quiet = { info: () => {}, warn: () => {}, error: (m: string) => console.error(m) };

/** A driver whose submit answers come from `answer` (default: accepted); it keeps what it was given. */
export class ScriptedSmsDriver implements SmsDriver {
  readonly name = 'scripted';
  readonly sent: SmsSubmit[] = [];
  constructor(public answer: (m: SmsSubmit, nth: number) => SubmitResult = (m) => ({ ok: true, gatewayMessageId: `gw-${m.messageId}` })) {}
  async send(m: SmsSubmit): Promise<SubmitResult> {
    this.sent.push(m);
    return this.answer(m, this.sent.length);
  }
  async close(): Promise<void> {}
}

/** smsEvents that remember their promises, so a test can wait for the reports a driver fired. */
export function trackedEvents(db: Db): SmsEvents & { flush(): Promise<void> } {
  const events = smsEvents(db, quiet);
  const pending = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    pending.add(p);
    void p.catch(() => undefined).finally(() => pending.delete(p));
    return p;
  };
  return {
    report: (g, r) => track(events.report(g, r)),
    inbound: (g, m) => track(events.inbound(g, m)),
    async flush() {
      // The simulator reports after a setImmediate: let those start, then wait for them.
      for (let i = 0; i < 3; i++) {
        await new Promise((resolve) => setImmediate(resolve));
        await Promise.all([...pending]);
      }
    },
  };
}

export interface SmsScenario {
  user: TestUser;
  campaignId: number;
  gatewayId: number;
  clock: ManualClock;
  driver: SmsDriver;
  events: ReturnType<typeof trackedEvents>;
  engine: Engine;
  subscriberIds: number[];
}

export interface SmsScenarioOptions {
  campaign?: Partial<typeof smsCampaigns.$inferInsert>;
  numbers?: string[];
  subscriber?: Partial<typeof smsSubscribers.$inferInsert>;
  user?: { balance?: string; sms_rate?: string };
  gateway?: Partial<typeof smsGateways.$inferInsert>;
  /** The scripted driver to use; without it, the gateway's own driver (the simulator). */
  driver?: ScriptedSmsDriver;
  clockAt?: string;
  engineId?: string;
}

export async function smsScenario(db: Db, opts: SmsScenarioOptions = {}): Promise<SmsScenario> {
  await db.update(smsCampaigns).set({ status: CampaignStatus.End }).where(eq(smsCampaigns.status, CampaignStatus.Start));
  const user = await makeUser(db, { balance: opts.user?.balance ?? '100', sms_rate: opts.user?.sms_rate ?? '0' });
  const gateway = await makeSmsGateway(db, { settings: { delivery_rate: 0, failure_rate: 0 }, ...opts.gateway });
  const [campaign] = await db
    .insert(smsCampaigns)
    .values({
      sms_campaign_code: unique('S').toUpperCase(),
      name: unique('sms'),
      user_id: user.id,
      status: CampaignStatus.Start,
      callerid: '5550100',
      sms_gateway_id: gateway.id,
      text_message: 'Hello',
      startingdate: '2026-01-01T00:00:00Z',
      expirationdate: '2026-12-31T00:00:00Z',
      frequency: 1_000_000,
      has_been_started: true,
      last_spooled_contact_id: sql`(select coalesce(max(id), 0) from contacts)`,
      ...opts.campaign,
    } as typeof smsCampaigns.$inferInsert)
    .returning();
  const numbers = opts.numbers ?? ['+15550001'];
  const subs = numbers.length
    ? await db
        .insert(smsSubscribers)
        .values(numbers.map((n) => ({ sms_campaign_id: campaign.id, duplicate_contact: n, phone_key: phoneKey(n), next_attempt_at: '2026-01-01T00:00:00Z', ...opts.subscriber })))
        .returning({ id: smsSubscribers.id })
    : [];
  const clock = new ManualClock(opts.clockAt ?? '2026-01-05T09:00:00Z');
  const events = trackedEvents(db);
  const driver = opts.driver ?? createSmsDriver({ ...gateway, settings: gateway.settings as Record<string, unknown> }, { clock, events });
  // Voice calls are not part of these tests: the engine has no voice driver.
  const engine = makeEngine(db, clock, { smsDriver: driver, engineId: opts.engineId });
  return { user, campaignId: campaign.id, gatewayId: gateway.id, clock, driver, events, engine, subscriberIds: subs.map((s) => s.id) };
}

/** One pass, then wait for its sends to be recorded and the reports they fired; returns the messages claimed. */
export async function smsPass(s: Pick<SmsScenario, 'engine' | 'events'>): Promise<number> {
  const r = await s.engine.runOnce();
  await s.engine.settle();
  await s.events.flush();
  return r.messages;
}

/** A campaign's SMS subscribers, in id order. */
export const smsSubscriberRows = (db: Db, campaignId: number) =>
  db.select().from(smsSubscribers).where(eq(smsSubscribers.sms_campaign_id, campaignId)).orderBy(asc(smsSubscribers.id));

/** A campaign's SMS messages, in id order. */
export const smsMessageRows = (db: Db, campaignId: number) =>
  db.select().from(smsMessages).where(eq(smsMessages.sms_campaign_id, campaignId)).orderBy(asc(smsMessages.id));
