/**
 * Accounts: creation and update, tokens, and the first admin. The one rule set of the CLI
 * (`user create|update|deactivate`, `token create|revoke`) and of the admins' API
 * (/rest-api/accounts/, /rest-api/tokens/).
 */
import type { Db } from '../../db/database.ts';
import type { CallingHours, ContactCaps } from '../../campaign/contact-policy.ts';
import { hashSecret, newToken, randomPassword } from '../../http/passwords.ts';
import { userChanged } from '../../http/user-cache.ts';
import {
  countUsers,
  findUserByUsername,
  insertToken,
  insertUser,
  lockActiveAdmins,
  type NewUser,
  type TokenRow,
  updateUser,
  type UserRow,
} from '../../users/users.repository.ts';
import { deleteUserSessions } from '../../users/sessions.repository.ts';

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
  balance_low_threshold?: string | null;
  /** Recordings older than this many days are deleted (issue 16 item 6); null: kept. */
  recording_retention_days?: number | null;
  /** Issue 16: contact caps and legal calling hours (src/campaign/contact-policy.ts); null: off. */
  contact_caps?: ContactCaps | null;
  calling_hours?: CallingHours | null;
  /** The country its numbers without '+' are read in (contract §1); null: DEFAULT_COUNTRY. */
  default_country?: string | null;
  is_active?: boolean;
}

/** A broken account rule: `message` for the CLI, under `field` in an API 400. */
export class AccountError extends Error {
  constructor(
    message: string,
    readonly field = 'non_field_errors',
  ) {
    super(message);
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The rules of the values given, on create and on update alike. */
function check(input: UserInput): void {
  if (input.username !== undefined && !/^[\w.@+-]{1,150}$/.test(input.username)) {
    throw new AccountError('a username is 1 to 150 letters, digits and @.+-_', 'username');
  }
  if (input.password !== undefined && input.password === '') throw new AccountError('a password may not be empty', 'password');
  if (input.email && !EMAIL.test(input.email)) throw new AccountError('Enter a valid email address.', 'email');
}

function values(input: UserInput): Partial<NewUser> {
  const { password: _password, ...rest } = input;
  return Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined));
}

export async function createUser(db: Db, input: UserInput & { username: string; password: string }): Promise<UserRow> {
  check(input);
  if (await findUserByUsername(db, input.username)) throw new AccountError(`user "${input.username}" already exists`, 'username');
  return insertUser(db, { ...values(input), username: input.username, password_hash: await hashSecret(input.password) } as NewUser);
}

export async function changeUser(db: Db, username: string, input: UserInput): Promise<UserRow> {
  const user = await findUserByUsername(db, username);
  if (!user) throw new AccountError(`no user "${username}"`);
  return changeAccount(db, user, input);
}

/** Changes `user` (read just before): renames, passwords, rights, deactivation. */
export async function changeAccount(db: Db, user: UserRow, input: UserInput): Promise<UserRow> {
  check(input);
  if (input.username !== undefined && input.username !== user.username && (await findUserByUsername(db, input.username))) {
    throw new AccountError(`user "${input.username}" already exists`, 'username');
  }
  const changes: Partial<NewUser> = values(input);
  if (input.password !== undefined) changes.password_hash = await hashSecret(input.password);
  // Nobody could manage accounts any more (nor undo this) without a shell and the database.
  const losesAdmin = user.is_admin && user.is_active && (input.is_admin === false || input.is_active === false);
  // A new password or a deactivation signs the account out of every browser, with the change.
  const endsSessions = input.password !== undefined || input.is_active === false;
  const row =
    losesAdmin || endsSessions
      ? await db.transaction(async (tx) => {
          // Every active admin row is locked: two admins demoting each other at once are taken one
          // after the other, and the second counts what the first left (a count alone let both pass).
          if (losesAdmin && (await lockActiveAdmins(tx)) <= 1) {
            throw new AccountError('the last active admin cannot be deactivated or made a regular user', input.is_active === false ? 'is_active' : 'is_admin');
          }
          if (endsSessions) await deleteUserSessions(tx, user.id);
          return (await updateUser(tx, user.id, changes)) as UserRow;
        })
      : ((await updateUser(db, user.id, changes)) as UserRow);
  userChanged(user.id); // other processes hear of it from the users_changed trigger
  return row;
}

/** Issues a new API token for `username`; the key is returned once and stored only hashed. */
export async function createToken(db: Db, username: string): Promise<string> {
  const user = await findUserByUsername(db, username);
  if (!user) throw new AccountError(`no user "${username}"`);
  return (await issueToken(db, user.id)).key;
}

/** A new API token of user `userId`: its key (shown once, stored only hashed) and its row. */
export async function issueToken(db: Db, userId: number): Promise<{ key: string; token: TokenRow }> {
  const { key, prefix } = newToken();
  return { key, token: await insertToken(db, userId, prefix, await hashSecret(key)) };
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
