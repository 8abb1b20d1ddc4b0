/** Phonebooks and contacts, do-not-call lists, caller ids (issue 3). */
import { bigint, boolean, date, index, integer, jsonb, numeric, pgTable, serial, smallint, text, varchar } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import { createdDate, timestamptz, updatedDate } from './columns.ts';

export const phonebooks = pgTable(
  'phonebooks',
  {
    id: serial('id').primaryKey(),
    name: varchar('name', { length: 100 }).notNull(),
    description: text('description').notNull().default(''),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [index('phonebooks_user_idx').on(t.user_id)],
);

export const ContactStatus = { Inactive: 0, Active: 1 } as const;

export const contacts = pgTable(
  'contacts',
  {
    id: serial('id').primaryKey(),
    phonebook_id: integer('phonebook_id').notNull().references(() => phonebooks.id, { onDelete: 'cascade' }),
    /** The normalised number: an optional + and digits (contract §1); collation "C" (migration 0011). */
    contact: varchar('contact', { length: 21 }).notNull(),
    /** The number's identity (src/http/phone.ts, phoneKey; migration 0023); collation "C". */
    phone_key: varchar('phone_key', { length: 20 }).notNull(),
    full_name: varchar('full_name', { length: 200 }).notNull().default(''),
    additional_vars: jsonb('additional_vars').notNull().default({}),
    status: smallint('status').notNull().default(ContactStatus.Active),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [index('contacts_phonebook_key_idx').on(t.phonebook_id, t.phone_key), index('contacts_phonebook_id_idx').on(t.phonebook_id, t.id)],
);

export const dncLists = pgTable(
  'dnc_lists',
  {
    id: serial('id').primaryKey(),
    name: varchar('name', { length: 100 }).notNull(),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    /** A global list applies to every campaign of its owner; an admin's, to every campaign. */
    is_global: boolean('is_global').notNull().default(false),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [index('dnc_lists_user_idx').on(t.user_id)],
);

export const dncContacts = pgTable(
  'dnc_contacts',
  {
    id: serial('id').primaryKey(),
    dnc_id: integer('dnc_id').notNull().references(() => dncLists.id, { onDelete: 'cascade' }),
    phone_number: varchar('phone_number', { length: 21 }).notNull(),
    /** The number's identity, which DNC matching compares (src/http/phone.ts, phoneKey; migration 0023). */
    phone_key: varchar('phone_key', { length: 20 }).notNull(),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [index('dnc_contacts_phone_key_dnc_idx').on(t.phone_key, t.dnc_id), index('dnc_contacts_dnc_id_idx').on(t.dnc_id, t.id)],
);

export const calleridGroups = pgTable(
  'callerid_groups',
  {
    id: serial('id').primaryKey(),
    name: varchar('name', { length: 100 }).notNull(),
    description: text('description').notNull().default(''),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    /** Rotation (migration 0026): at most this many calls per number a day; null: no cap. */
    daily_cap: integer('daily_cap'),
    /** A number answered less than this share (0–1) today rests for a day; null: no floor. */
    min_answer_rate: numeric('min_answer_rate', { precision: 4, scale: 3 }),
    /** The floor is judged once a number has ended this many calls today. */
    answer_rate_min_calls: integer('answer_rate_min_calls').notNull().default(20),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [index('callerid_groups_user_idx').on(t.user_id)],
);

export const callerids = pgTable(
  'callerids',
  {
    id: serial('id').primaryKey(),
    /** A number prefix, or `*` for any number (contract §6). */
    areacode: varchar('areacode', { length: 20 }).notNull().default(''),
    callerid_num: varchar('callerid_num', { length: 21 }).notNull(),
    callerid_name: varchar('callerid_name', { length: 100 }).notNull().default(''),
    callerid_group_id: integer('callerid_group_id')
      .notNull()
      .references(() => calleridGroups.id, { onDelete: 'cascade' }),
    /** The day the *_today counters count (migration 0026); another day reads as 0. */
    usage_day: date('usage_day', { mode: 'string' }),
    calls_today: integer('calls_today').notNull().default(0),
    ended_today: integer('ended_today').notNull().default(0),
    answered_today: integer('answered_today').notNull().default(0),
    calls_total: bigint('calls_total', { mode: 'number' }).notNull().default(0),
    answered_total: bigint('answered_total', { mode: 'number' }).notNull().default(0),
    /** Under its group's answer-rate floor: not used until then. */
    resting_until: timestamptz('resting_until'),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [index('callerids_group_idx').on(t.callerid_group_id)],
);
