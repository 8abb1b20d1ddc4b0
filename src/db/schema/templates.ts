/**
 * Newfies' SMS and mail templates (issue 17, migration 0027), owned by a user. Their text takes
 * the placeholders of an SMS campaign's text_message ({full_name}, the contact's additional_vars).
 * SMS campaigns (sms_template_id) and alarms name them by id.
 */
import { integer, pgTable, serial, text, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import { createdDate, updatedDate } from './columns.ts';

export const smsTemplates = pgTable(
  'sms_templates',
  {
    id: serial('id').primaryKey(),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    label: varchar('label', { length: 75 }).notNull(),
    /** Unique per owner (Newfies: unique). */
    template_key: varchar('template_key', { length: 30 }).notNull(),
    sender_phonenumber: varchar('sender_phonenumber', { length: 20 }).notNull().default(''),
    sms_text: text('sms_text').notNull(),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [uniqueIndex('sms_templates_user_key_idx').on(t.user_id, t.template_key)],
);

export const mailTemplates = pgTable(
  'mail_templates',
  {
    id: serial('id').primaryKey(),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    label: varchar('label', { length: 75 }).notNull(),
    template_key: varchar('template_key', { length: 30 }).notNull(),
    from_email: varchar('from_email', { length: 254 }).notNull().default(''),
    from_name: varchar('from_name', { length: 75 }).notNull().default(''),
    subject: varchar('subject', { length: 200 }).notNull().default(''),
    message_plaintext: text('message_plaintext').notNull().default(''),
    message_html: text('message_html').notNull().default(''),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [uniqueIndex('mail_templates_user_key_idx').on(t.user_id, t.template_key)],
);
