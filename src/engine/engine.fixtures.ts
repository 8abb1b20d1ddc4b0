/**
 * Rows for the engine tests, inserted directly (the engine reads tables, not the API): a user, a
 * gateway, a START campaign with a frozen survey, subscribers. Each call ends the campaigns
 * earlier scenarios left START, so that a test's engine sees only its own campaign.
 */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { CampaignStatus, campaigns, gateways, subscribers } from '../db/schema.ts';
import type { FlowSection, SurveyFlow } from '../campaign/survey-flow.ts';
import { type TestUser, flowSectionDefaults, makeEngine, makeGateway, makeUser, unique } from '../../test/factories.ts';
import { ManualClock } from '../clock.ts';
import type { Engine } from './engine.ts';
import { type CallScript, ScriptedDriver } from '../drivers/voice/scripted.ts';
import type { SmsDriver } from '../drivers/sms/driver.ts';
import { phoneKey } from '../http/phone.ts';

let nextSectionId = 1_000_000;

/** A flow section with defaults (ids made up: a frozen survey outlives its template). */
export function section(over: Partial<FlowSection>): FlowSection {
  return {
    id: nextSectionId++,
    ...flowSectionDefaults,
    order: 1,
    question: 'Q',
    script: '',
    retries: 0,
    branches: [],
    ...over,
  };
}

export const flowOf = (sections: FlowSection[]): SurveyFlow => ({ survey_id: 0, name: 'test', sections });

export interface Scenario {
  userId: number;
  /** The campaign's owner (with credentials, for reads through the API). */
  user: TestUser;
  campaignId: number;
  clock: ManualClock;
  driver: ScriptedDriver;
  engine: Engine;
  subscriberIds: number[];
}

export interface ScenarioOptions {
  campaign?: Partial<typeof campaigns.$inferInsert>;
  numbers?: string[];
  subscriber?: Partial<typeof subscribers.$inferInsert>;
  user?: { balance?: string; call_rate?: string };
  script?: (to: string) => CallScript;
  clockAt?: string;
  billingIncrement?: number;
  gateway?: Partial<typeof gateways.$inferInsert>;
  /** The driver of the campaign's SMS gateway (send-SMS sections). */
  smsDriver?: SmsDriver;
  /** Survey API sections may call loopback addresses (default true, as tests set WEBHOOK_ALLOW_PRIVATE). */
  allowPrivate?: boolean;
  /** The engine's pollMs (its loop, start()). */
  pollMs?: number;
}

export async function scenario(db: Db, opts: ScenarioOptions = {}): Promise<Scenario> {
  await db.update(campaigns).set({ status: CampaignStatus.End }).where(eq(campaigns.status, CampaignStatus.Start));
  const user = await makeUser(db, { balance: opts.user?.balance ?? '100', call_rate: opts.user?.call_rate ?? '0' });
  const gateway = await makeGateway(db, opts.gateway);
  const [campaign] = await db
    .insert(campaigns)
    .values({
      campaign_code: unique('C').toUpperCase(),
      name: unique('camp'),
      user_id: user.id,
      status: CampaignStatus.Start,
      callerid: '5550100',
      aleg_gateway_id: gateway.id,
      startingdate: '2026-01-01T00:00:00Z',
      expirationdate: '2026-12-31T00:00:00Z',
      frequency: 6000,
      max_aleg: 0,
      has_been_started: true,
      survey_snapshot: flowOf([section({ question: 'Hello' })]),
      last_spooled_contact_id: sql`(select coalesce(max(id), 0) from contacts)`,
      ...opts.campaign,
    } as typeof campaigns.$inferInsert)
    .returning();
  const numbers = opts.numbers ?? ['+15550001'];
  const subs = await db
    .insert(subscribers)
    .values(numbers.map((n) => ({ campaign_id: campaign.id, duplicate_contact: n, phone_key: phoneKey(n), next_attempt_at: '2026-01-01T00:00:00Z', ...opts.subscriber })))
    .returning({ id: subscribers.id });
  const clock = new ManualClock(opts.clockAt ?? '2026-01-05T09:00:00Z');
  const driver = new ScriptedDriver(clock, opts.script);
  const engine = makeEngine(db, clock, { driver, billingIncrement: opts.billingIncrement, smsDriver: opts.smsDriver, allowPrivate: opts.allowPrivate, pollMs: opts.pollMs });
  return { userId: user.id, user, campaignId: campaign.id, clock, driver, engine, subscriberIds: subs.map((s) => s.id) };
}

/** One pass, then wait for the calls it started to be recorded. */
export async function pass(s: Pick<Scenario, 'engine'>): Promise<number> {
  const r = await s.engine.runOnce();
  await s.engine.settle();
  return r.started;
}
