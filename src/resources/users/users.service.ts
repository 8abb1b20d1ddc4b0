/** Accounts: creation and update (CLI only, contract §3), tokens, and the first admin. */
import type { Db } from '../../db/database.ts';
import { hashSecret, newToken, randomPassword } from '../../http/passwords.ts';
import { userChanged } from '../../http/user-cache.ts';
import {
  countUsers,
  findUserByUsername,
  insertToken,
  insertUser,
  type NewUser,
  updateUser,
  type UserRow,
} from './users.repository.ts';

export interface UserInput {
  username?: string;
  password?: string;
  is_admin?: boolean;
  email?: string;
  first_name?: string;
  last_name?: string;
  balance?: string;
  call_rate?: string;
  sms_rate?: string;
}

export class AccountError extends Error {}

function values(input: UserInput): Partial<NewUser> {
  const { password: _password, ...rest } = input;
  return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
}

export async function createUser(db: Db, input: UserInput & { username: string; password: string }): Promise<UserRow> {
  if (!/^[\w.@+-]{1,150}$/.test(input.username)) {
    throw new AccountError('a username is 1 to 150 letters, digits and @.+-_');
  }
  if (await findUserByUsername(db, input.username)) throw new AccountError(`user "${input.username}" already exists`);
  return insertUser(db, { ...values(input), username: input.username, password_hash: await hashSecret(input.password) } as NewUser);
}

export async function changeUser(db: Db, username: string, input: UserInput): Promise<UserRow> {
  const user = await findUserByUsername(db, username);
  if (!user) throw new AccountError(`no user "${username}"`);
  const changes: Partial<NewUser> = values(input);
  if (input.password !== undefined) changes.password_hash = await hashSecret(input.password);
  const row = (await updateUser(db, user.id, changes)) as UserRow;
  userChanged(user.id); // other processes hear of it from the users_changed trigger
  return row;
}

/** Issues a new API token for `username`; the key is returned once and stored only hashed. */
export async function createToken(db: Db, username: string): Promise<string> {
  const user = await findUserByUsername(db, username);
  if (!user) throw new AccountError(`no user "${username}"`);
  const { key, prefix } = newToken();
  await insertToken(db, user.id, prefix, await hashSecret(key));
  return key;
}

/**
 * On the very first start (no users at all), creates `admin` with the given password, or a
 * random one that the caller prints once. Returns the password when it generated one.
 */
export async function ensureFirstAdmin(db: Db, password: string | undefined): Promise<{ created: boolean; generated?: string }> {
  if ((await countUsers(db)) > 0) return { created: false };
  const generated = password ? undefined : randomPassword();
  try {
    await createUser(db, { username: 'admin', password: password ?? (generated as string), is_admin: true });
  } catch (err) {
    // Another process created it first: that is the same outcome.
    if ((err as { code?: string }).code === '23505' || err instanceof AccountError) return { created: false };
    throw err;
  }
  return { created: true, generated };
}
