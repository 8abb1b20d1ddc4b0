/**
 * Factories: each test makes its own users and rows, with unique names, and asserts only on
 * those. Model: outline/outline server/test/factories.ts. The one place for a `make…` of a row
 * (inserted directly, so a test does not depend on another resource's routes) and of a test
 * engine; scenarios built from them live beside what they fake (src/engine/*.fixtures.ts).
 */
import crypto from 'node:crypto';
import type { Db } from '../src/db/database.ts';
import {
  calleridGroups,
  campaigns,
  callerids,
  contacts,
  dncContacts,
  dncLists,
  gateways,
  phonebooks,
  sectionTemplates,
  smsCampaigns,
  smsGateways,
  surveyTemplates,
} from '../src/db/schema.ts';
import type { FlowSection } from '../src/campaign/survey-flow.ts';
import type { ManualClock } from '../src/clock.ts';
import type { SmsDriver } from '../src/drivers/sms/driver.ts';
import type { TelephonyDriver } from '../src/drivers/voice/driver.ts';
import { Engine } from '../src/engine/engine.ts';
import { createUser as createAccount } from '../src/resources/users/users.service.ts';
import { basic } from './helpers.ts';
import { phoneKey } from '../src/http/phone.ts';

export const unique = (prefix = 'x') => `${prefix}${crypto.randomBytes(5).toString('hex')}`;

export interface TestUser {
  id: number;
  username: string;
  password: string;
  is_admin: boolean;
  /** The Authorization header for this user (HTTP Basic). */
  auth: string;
}

export async function makeUser(
  db: Db,
  opts: { admin?: boolean; balance?: string; call_rate?: string; sms_rate?: string; username?: string } = {},
): Promise<TestUser> {
  const username = opts.username ?? unique('user');
  const password = `pw-${unique()}`;
  const row = await createAccount(db, {
    username,
    password,
    is_admin: opts.admin ?? false,
    balance: opts.balance,
    call_rate: opts.call_rate,
    sms_rate: opts.sms_rate,
  });
  return { id: row.id, username, password, is_admin: row.is_admin, auth: basic(username, password) };
}

/** The defaults of a section in a survey flow (SectionTemplate's), for flows built in memory. */
export const flowSectionDefaults: Omit<FlowSection, 'id' | 'order' | 'question' | 'script' | 'retries' | 'branches'> = {
  type: 1,
  audiofile: null,
  invalid_audiofile: null,
  timeout: 5,
  keys: Array(10).fill(null),
  rating_laps: 9,
  validate_number: true,
  number_digits: 2,
  min_number: 0,
  max_number: 99,
  phonenumber: null,
  conference: null,
  completed: false,
  queue: null,
  sms_text: null,
  api_url: null,
};

/** A caller id group of `userId` holding these numbers by area code ('*' = any); returns its id. */
export async function makeCallerIdGroup(db: Db, userId: number, numbers: { areacode: string; callerid_num: string }[]): Promise<number> {
  const [group] = await db.insert(calleridGroups).values({ name: unique('callers'), user_id: userId }).returning();
  if (numbers.length) await db.insert(callerids).values(numbers.map((n) => ({ ...n, callerid_group_id: group.id })));
  return group.id;
}

/** A gateway (active unless `values` say otherwise); returns its row. */
export async function makeGateway(db: Db, values: Partial<typeof gateways.$inferInsert> = {}) {
  const [row] = await db.insert(gateways).values({ name: unique('gw'), ...values }).returning();
  return row;
}

/** An SMS gateway (the simulator unless `values` say otherwise); returns its row. */
export async function makeSmsGateway(db: Db, values: Partial<typeof smsGateways.$inferInsert> = {}) {
  const [row] = await db.insert(smsGateways).values({ name: unique('smsgw'), callback_secret: unique('s'), ...values }).returning();
  return row;
}

/** A voice campaign row (no phonebook; link one with `campaignPhonebooks`), written directly. */
export async function makeCampaign(db: Db, values: Partial<typeof campaigns.$inferInsert> & { user_id: number }) {
  const [row] = await db
    .insert(campaigns)
    .values({ name: unique('camp'), campaign_code: unique('c'), ...values })
    .returning();
  return row;
}

/** An SMS campaign row, written directly. */
export async function makeSmsCampaign(db: Db, values: Partial<typeof smsCampaigns.$inferInsert> & { user_id: number }) {
  const [row] = await db
    .insert(smsCampaigns)
    .values({ name: unique('sms'), sms_campaign_code: unique('s'), ...values })
    .returning();
  return row;
}

/** A survey owned by `userId`; with `sections` > 0 it is ready to run (a play-message script). Returns its id. */
export async function makeSurvey(db: Db, userId: number, sections = 1): Promise<number> {
  const [survey] = await db.insert(surveyTemplates).values({ name: unique('survey'), user_id: userId }).returning();
  for (let i = 0; i < sections; i++) {
    await db.insert(sectionTemplates).values({ survey_id: survey.id, order: i + 1, question: `q${i}`, script: 'Hello' });
  }
  return survey.id;
}

/** A phonebook of `userId` holding `numbers` (active unless listed in `inactive`); returns its id. */
export async function makePhonebook(db: Db, userId: number, numbers: string[] = [], inactive: string[] = []): Promise<number> {
  const [book] = await db.insert(phonebooks).values({ name: unique('book'), user_id: userId }).returning();
  await addContacts(db, book.id, numbers, inactive);
  return book.id;
}

/** Contacts added to a phonebook: `numbers` active (full_name `N <number>`, additional_vars `{n}`), `inactive` not. */
export async function addContacts(db: Db, phonebookId: number, numbers: string[], inactive: string[] = []): Promise<void> {
  const rows = [
    ...numbers.map((contact) => ({ phonebook_id: phonebookId, contact, phone_key: phoneKey(contact), full_name: `N ${contact}`, additional_vars: { n: contact } })),
    ...inactive.map((contact) => ({ phonebook_id: phonebookId, contact, phone_key: phoneKey(contact), status: 0 })),
  ];
  if (rows.length) await db.insert(contacts).values(rows);
}

/** A do-not-call list of `userId` holding `numbers` (global with `isGlobal`); returns its id. */
export async function makeDncList(db: Db, userId: number, numbers: string[] = [], isGlobal = false): Promise<number> {
  const [list] = await db.insert(dncLists).values({ name: unique('dnc'), user_id: userId, is_global: isGlobal }).returning();
  if (numbers.length) await db.insert(dncContacts).values(numbers.map((phone_number) => ({ dnc_id: list.id, phone_number, phone_key: phoneKey(phone_number) })));
  return list.id;
}

/** What a test engine dials and sends with; without `driver` a voice call is an error (SMS tests). */
export interface TestEngineOptions {
  driver?: TelephonyDriver;
  smsDriver?: SmsDriver;
  billingIncrement?: number;
  engineId?: string;
  /** Survey API sections may call loopback (WEBHOOK_ALLOW_PRIVATE); true unless a test says otherwise. */
  allowPrivate?: boolean;
  /** DATA_DIR: with it the engine prunes recordings by their owners' retention. */
  dataDir?: string;
  /** The engine's loop (start()): the sleep between passes, and the spacing of its whole passes (default 200 ms). */
  pollMs?: number;
  /** An engine silent this long is dead; its heartbeat is fresh for a third of it (default 15 s). */
  staleMs?: number;
  /** Where its warnings go (none by default). */
  warn?: (message: string) => void;
}

/** An engine on `clock` (UTC, PostgreSQL's rules for dead engines), logging only errors. */
export function makeEngine(db: Db, clock: ManualClock, opts: TestEngineOptions = {}): Engine {
  const { driver, smsDriver } = opts;
  return new Engine({
    db,
    log: { info: () => {}, warn: opts.warn ?? (() => {}), error: (m) => console.error(m) },
    clock,
    drivers: () => {
      if (!driver) throw new Error('no voice calls in SMS tests');
      return driver;
    },
    smsDrivers: smsDriver && (() => smsDriver),
    config: { timeZone: 'UTC', billingIncrement: opts.billingIncrement ?? 6, webhookAllowPrivate: opts.allowPrivate ?? true, dataDir: opts.dataDir },
    databaseKind: 'postgres',
    engineId: opts.engineId,
    pollMs: opts.pollMs,
    staleMs: opts.staleMs,
  });
}
