/**
 * SMS campaigns and what the SMS engine writes (issue 6): SMS campaigns and their phonebooks,
 * SMS subscribers, and one row per message sent (the sms-message resource). The SMS gateways
 * they send through are in gateways.ts.
 * The campaign columns mirror the voice campaign's so that the engine's pacing, windows, DNC
 * and billing rules apply to both unchanged.
 */
import {
  bigint,
  bigserial,
  index,
  integer,
  numeric,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  uniqueIndex,
  varchar,
} from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import { callingWindowColumns, campaignLifeColumns, createdDate, subscriberColumns, timestamptz, updatedDate } from './columns.ts';
import { CampaignStatus, callrequests } from './campaigns.ts';
import { phonebooks } from './contacts.ts';
import { smsGateways } from './gateways.ts';
import { smsTemplates } from './templates.ts';

export const smsCampaigns = pgTable(
  'sms_campaigns',
  {
    id: serial('id').primaryKey(),
    sms_campaign_code: varchar('sms_campaign_code', { length: 20 }).notNull().unique(),
    name: varchar('name', { length: 100 }).notNull(),
    description: text('description').notNull().default(''),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    /** Contract §4: an SMS campaign is created PAUSE (2). */
    status: smallint('status').notNull().default(CampaignStatus.Pause),
    /** The sender number or name. */
    callerid: varchar('callerid', { length: 80 }).notNull().default(''),
    sms_gateway_id: integer('sms_gateway_id').references(() => smsGateways.id, { onDelete: 'restrict' }),
    /** May use {full_name} and the contact's additional_vars ({debt}). */
    text_message: text('text_message').notNull().default(''),
    /** Its sms_text is sent when text_message is empty (issue 17, migration 0027). */
    sms_template_id: integer('sms_template_id').references(() => smsTemplates.id, { onDelete: 'set null' }),
    ...callingWindowColumns(),
    /** Messages per minute, spread evenly. */
    frequency: integer('frequency').notNull().default(10),
    /** In the spec's SMS campaign row; kept and shown, unused by SMS sending. */
    callmaxduration: integer('callmaxduration').notNull().default(1800),
    /** Resends of a failed message. */
    maxretry: integer('maxretry').notNull().default(0),
    /** Seconds before a failed message is sent again. */
    intervalretry: integer('intervalretry').notNull().default(300),
    ...campaignLifeColumns(),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [
    uniqueIndex('sms_campaigns_user_name_idx').on(t.user_id, t.name),
    index('sms_campaigns_status_idx').on(t.status),
    index('sms_campaigns_sms_template_idx').on(t.sms_template_id),
  ],
);

export const smsCampaignPhonebooks = pgTable(
  'sms_campaign_phonebooks',
  {
    sms_campaign_id: integer('sms_campaign_id').notNull().references(() => smsCampaigns.id, { onDelete: 'cascade' }),
    phonebook_id: integer('phonebook_id').notNull().references(() => phonebooks.id, { onDelete: 'restrict' }),
  },
  (t) => [primaryKey({ columns: [t.sms_campaign_id, t.phonebook_id] }), index('sms_campaign_phonebooks_phonebook_idx').on(t.phonebook_id)],
);

/** SMS subscriber `status` (contract §4). */
export const SmsSubscriberStatus = {
  Pending: 1,
  Pause: 2,
  Abort: 3,
  Fail: 4,
  Complete: 5,
  InProcess: 6,
  NotAuthorized: 7,
} as const;

export const smsSubscribers = pgTable(
  'sms_subscribers',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    // No foreign keys, as for voice subscribers (migration 0011 keeps the same rules set-based).
    sms_campaign_id: integer('sms_campaign_id').notNull(),
    ...subscriberColumns(SmsSubscriberStatus.Pending),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [
    uniqueIndex('sms_subscribers_campaign_number_idx').on(t.sms_campaign_id, t.duplicate_contact),
    index('sms_subscribers_campaign_key_idx').on(t.sms_campaign_id, t.phone_key),
    index('sms_subscribers_due_idx').on(t.sms_campaign_id, t.status, t.next_attempt_at),
  ],
);

/** sms-message `status`. */
export const SmsMessageStatus = { Unsent: 'unsent', Sent: 'sent', Delivered: 'delivered', Failed: 'failed' } as const;

export const smsMessages = pgTable(
  'sms_messages',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** The SMS campaign that sent it; null for a message sent by a voice call's send-SMS section. */
    sms_campaign_id: integer('sms_campaign_id').references(() => smsCampaigns.id, { onDelete: 'cascade' }),
    /** The call whose send-SMS section (type 10) sent it. */
    callrequest_id: bigint('callrequest_id', { mode: 'number' }).references(() => callrequests.id, { onDelete: 'set null' }),
    sms_subscriber_id: bigint('sms_subscriber_id', { mode: 'number' }).references(() => smsSubscribers.id, { onDelete: 'set null' }),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    sms_gateway_id: integer('sms_gateway_id').references(() => smsGateways.id, { onDelete: 'set null' }),
    recipient_number: varchar('recipient_number', { length: 21 }).notNull(),
    sender_number: varchar('sender_number', { length: 80 }).notNull().default(''),
    content: text('content').notNull(),
    /** GSM-7 (160/153 per part) or UCS-2 (70/67). */
    parts: integer('parts').notNull().default(1),
    /** sms_rate × parts, charged in the transaction that records the send. */
    cost: numeric('cost', { precision: 16, scale: 5 }).notNull().default('0'),
    status: varchar('status', { length: 10 }).notNull().default(SmsMessageStatus.Unsent),
    gateway_message_id: varchar('gateway_message_id', { length: 100 }).notNull().default(''),
    /** Which attempt of the subscriber this is (1 = first). */
    attempt: integer('attempt').notNull().default(1),
    /** The engine process sending it, so a restart can settle a send cut short. */
    engine_id: varchar('engine_id', { length: 64 }).notNull().default(''),
    send_date: timestamptz('send_date'),
    delivery_date: timestamptz('delivery_date'),
    error: varchar('error', { length: 200 }).notNull().default(''),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [
    index('sms_messages_campaign_idx').on(t.sms_campaign_id, t.status),
    index('sms_messages_gateway_message_idx').on(t.sms_gateway_id, t.gateway_message_id),
    index('sms_messages_recipient_idx').on(t.recipient_number),
    index('sms_messages_subscriber_idx').on(t.sms_subscriber_id),
  ],
);

/** Messages received from phones (opt-out replies), kept for the operator. */
export const smsInbound = pgTable('sms_inbound', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  sms_gateway_id: integer('sms_gateway_id').references(() => smsGateways.id, { onDelete: 'set null' }),
  sender_number: varchar('sender_number', { length: 21 }).notNull(),
  recipient_number: varchar('recipient_number', { length: 80 }).notNull().default(''),
  content: text('content').notNull().default(''),
  /** The opt-out keyword found, '' when none. */
  opt_out: varchar('opt_out', { length: 20 }).notNull().default(''),
  received_date: timestamptz('received_date').notNull(),
  created_date: createdDate(),
});
