/** Users, their API tokens and payments (contract §3). */
import { boolean, index, integer, numeric, pgTable, serial, text, varchar } from 'drizzle-orm/pg-core';
import { createdDate, updatedDate } from './columns.ts';

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
