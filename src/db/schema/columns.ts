/** Column helpers shared by every table: timestamps as PostgreSQL text (microseconds kept). */
import { boolean, integer, jsonb, numeric, smallint, time, timestamp, varchar } from 'drizzle-orm/pg-core';

/** A timestamptz read as PostgreSQL's text, so that microseconds survive (contract §1). */
export const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'string' });

export const createdDate = () => timestamptz('created_date').notNull().defaultNow();
export const updatedDate = () => timestamptz('updated_date').notNull().defaultNow();

/**
 * When a campaign may dial or send (contract §5), the same columns for voice and SMS campaigns:
 * dates, the daily window and the weekdays.
 */
export const callingWindowColumns = () => ({
  startingdate: timestamptz('startingdate'),
  expirationdate: timestamptz('expirationdate'),
  daily_start_time: time('daily_start_time').notNull().default('00:00:00'),
  daily_stop_time: time('daily_stop_time').notNull().default('23:59:59'),
  monday: boolean('monday').notNull().default(true),
  tuesday: boolean('tuesday').notNull().default(true),
  wednesday: boolean('wednesday').notNull().default(true),
  thursday: boolean('thursday').notNull().default(true),
  friday: boolean('friday').notNull().default(true),
  saturday: boolean('saturday').notNull().default(true),
  sunday: boolean('sunday').notNull().default(true),
});

/** What the start, the spool and the engine keep on a campaign, voice or SMS. */
export const campaignLifeColumns = () => ({
  end_when_done: boolean('end_when_done').notNull().default(false),
  has_been_started: boolean('has_been_started').notNull().default(false),
  totalcontact: integer('totalcontact').notNull().default(0),
  /** The highest contact id already spooled: the trickle rule reads only newer contacts (§5). */
  last_spooled_contact_id: integer('last_spooled_contact_id').notNull().default(0),
  /** Pacing: the earliest time the next call or message may start (kept by the engine). */
  next_call_at: timestamptz('next_call_at'),
  /** Why the campaign is not dialing or sending, as last seen by the engine (e.g. waiting for credit). */
  engine_state: varchar('engine_state', { length: 200 }),
  started_date: timestamptz('started_date'),
  ended_date: timestamptz('ended_date'),
});

/**
 * A subscriber of a voice or SMS campaign, as the spool writes it (its campaign column and
 * status enumeration are the table's own; `pending` is the status it starts in).
 */
export const subscriberColumns = (pending: number) => ({
  /** The contact it was spooled from (no foreign key: migration 0011). */
  contact_id: integer('contact_id'),
  /** The number to dial or message, normalised (contract §1); collation "C" (migration 0011). */
  duplicate_contact: varchar('duplicate_contact', { length: 21 }).notNull(),
  /** The number's identity: one subscriber per key in a campaign (src/http/phone.ts; migration 0023). */
  phone_key: varchar('phone_key', { length: 20 }).notNull(),
  full_name: varchar('full_name', { length: 200 }).notNull().default(''),
  status: smallint('status').notNull().default(pending),
  count_attempt: integer('count_attempt').notNull().default(0),
  last_attempt: timestamptz('last_attempt'),
  /** When the subscriber is due (retries are due intervalretry after a failure). */
  next_attempt_at: timestamptz('next_attempt_at').notNull().defaultNow(),
  gmt_offset: numeric('gmt_offset', { precision: 4, scale: 2 }),
  tz_code: varchar('tz_code', { length: 64 }).notNull().default(''),
  additional_vars: jsonb('additional_vars').notNull().default({}),
  /** Why the subscriber is in its final state (DNC hit, attempts exhausted, aborted …). */
  reason: varchar('reason', { length: 200 }).notNull().default(''),
});
