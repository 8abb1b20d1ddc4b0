/**
 * Factories: each test makes its own users and rows, with unique names, and asserts only on
 * those. Model: outline/outline server/test/factories.ts.
 */
import crypto from 'node:crypto';
import type { Db } from '../src/db/database.ts';
import { calleridGroups, callerids } from '../src/db/schema.ts';
import type { FlowSection } from '../src/campaign/survey-flow.ts';
import { createUser as createAccount } from '../src/resources/users/users.service.ts';
import { basic } from './helpers.ts';

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
