/**
 * Factories: each test makes its own users and rows, with unique names, and asserts only on
 * those. Model: outline/outline server/test/factories.ts.
 */
import crypto from 'node:crypto';
import type { Db } from '../src/db/database.ts';
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
