/** Phonebooks and contacts, do-not-call lists, caller ids (issue 3). */
import { boolean, index, integer, jsonb, pgTable, serial, smallint, text, varchar } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import { createdDate, updatedDate } from './columns.ts';

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
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [index('callerids_group_idx').on(t.callerid_group_id)],
);
