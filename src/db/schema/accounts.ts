/** Users, their API tokens, payments (contract §3), failed logins, idempotency keys and browser sessions. */
import { boolean, index, integer, jsonb, numeric, pgTable, primaryKey, serial, text, timestamp, varchar } from 'drizzle-orm/pg-core';
import { createdDate, timestamptz, updatedDate } from './columns.ts';

export const users = pgTable('users', {
  id: serial('id').primaryKey(),
  username: varchar('username', { length: 150 }).notNull().unique(),
  password_hash: text('password_hash').notNull(),
  is_admin: boolean('is_admin').notNull().default(false),
  /** false: the user cannot authenticate (accounts are deactivated, not deleted: migration 0015). */
  is_active: boolean('is_active').notNull().default(true),
  email: varchar('email', { length: 254 }).notNull().default(''),
  first_name: varchar('first_name', { length: 150 }).notNull().default(''),
  last_name: varchar('last_name', { length: 150 }).notNull().default(''),
  balance: numeric('balance', { precision: 16, scale: 5 }).notNull().default('0'),
  call_rate: numeric('call_rate', { precision: 12, scale: 5 }).notNull().default('0'),
  sms_rate: numeric('sms_rate', { precision: 12, scale: 5 }).notNull().default('0'),
  /** A balance falling below it writes a balance.low event; null: none (migration 0020). */
  balance_low_threshold: numeric('balance_low_threshold', { precision: 16, scale: 5 }),
  /** Recordings older than this many days are deleted, files and rows (migration 0026); null: kept. */
  recording_retention_days: integer('recording_retention_days'),
  /** Contact caps across the user's campaigns; null: off (migration 0025, src/campaign/contact-policy.ts). */
  contact_caps: jsonb('contact_caps'),
  /** Legal calling hours in each contact's local time; null: off (migration 0025). */
  calling_hours: jsonb('calling_hours'),
  /** The country this user's numbers written without '+' are read in; null: DEFAULT_COUNTRY (migration 0023). */
  default_country: varchar('default_country', { length: 2 }),
  created_date: createdDate(),
  updated_date: updatedDate(),
});

export const apiTokens = pgTable(
  'api_tokens',
  {
    id: serial('id').primaryKey(),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    /** The first characters of the key, in clear, to find the row; the key itself is only hashed. */
    key_prefix: varchar('key_prefix', { length: 16 }).notNull(),
    key_hash: text('key_hash').notNull(),
    created_date: createdDate(),
  },
  (t) => [index('api_tokens_key_prefix_idx').on(t.key_prefix)],
);

export const payments = pgTable(
  'payments',
  {
    id: serial('id').primaryKey(),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    amount: numeric('amount', { precision: 16, scale: 5 }).notNull(),
    description: text('description').notNull().default(''),
    created_date: createdDate(),
  },
  (t) => [index('payments_user_idx').on(t.user_id)],
);

/**
 * Failed logins per (address, username), and per username across addresses (address ''), read
 * and written by src/http/login-throttle.ts; a row is forgotten after `expires_at`.
 */
export const loginFailures = pgTable(
  'login_failures',
  {
    username: varchar('username', { length: 150 }).notNull(),
    address: varchar('address', { length: 64 }).notNull(),
    /** Failures since `window_start` (the count restarts when the window has passed or at a lockout). */
    failures: integer('failures').notNull().default(0),
    window_start: timestamp('window_start', { withTimezone: true }).notNull(),
    /** Lockouts so far: each lasts twice the one before, up to a maximum. */
    lockouts: integer('lockouts').notNull().default(0),
    locked_until: timestamp('locked_until', { withTimezone: true }),
    expires_at: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ name: 'login_failures_pkey', columns: [t.username, t.address] }),
    index('login_failures_expires_idx').on(t.expires_at),
  ],
);

/** The first answer to a POST sent with an Idempotency-Key, replayed to its retries (src/http/idempotency.ts). */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    key: varchar('key', { length: 255 }).notNull(),
    /** What the request was (method, path, body): a retry must be the same request. */
    fingerprint: text('fingerprint').notNull(),
    /** The answer's status; null while the first request is still being answered. */
    status: integer('status'),
    /** The answer's headers that are replayed (content type, location), as JSON. */
    headers: text('headers'),
    body: text('body'),
    created: timestamp('created', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ name: 'idempotency_keys_pkey', columns: [t.user_id, t.key] }), index('idempotency_keys_created_idx').on(t.created)],
);

/**
 * Browser sign-ins (the console's `dialer_session` cookie, src/http/sessions.ts). Only a hash of
 * the cookie's secret is kept; the CSRF token is kept in clear, since it is answered again to
 * the signed-in browser and is worth nothing without the cookie. A signed-out session's row is
 * deleted; expired rows are pruned at sign-in.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: serial('id').primaryKey(),
    user_id: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** sha256 (hex) of the cookie's secret, which is 256 random bits: a slow hash would add nothing. */
    secret_hash: varchar('secret_hash', { length: 64 }).notNull().unique(),
    csrf_token: varchar('csrf_token', { length: 64 }).notNull(),
    created: timestamptz('created').notNull(),
    /** Absolute: SESSION_HOURS after sign-in, whatever the use. */
    expires: timestamptz('expires').notNull(),
    /** Moved forward at most every few minutes (not a write per request). */
    last_seen: timestamptz('last_seen').notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.user_id), index('sessions_expires_idx').on(t.expires)],
);
