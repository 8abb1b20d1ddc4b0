/**
 * Appointment reminders (issue 17, item 8; migration 0028): Newfies-Dialer's appointment module.
 * Every table carries its owner (`user_id`, copied from the parent row) so that owner scoping
 * (contract §3) is one indexed column, however deep the row sits (alarm → event → calendar).
 */
import { sql } from 'drizzle-orm';
import { bigint, bigserial, boolean, index, integer, jsonb, pgTable, serial, smallint, text, time, uniqueIndex, varchar } from 'drizzle-orm/pg-core';
import { users } from './accounts.ts';
import { campaigns, callrequests } from './campaigns.ts';
import { createdDate, timestamptz, updatedDate } from './columns.ts';
import { gateways, smsGateways } from './gateways.ts';
import { audioFiles, surveyTemplates } from './ivr.ts';
import { mailTemplates, smsTemplates } from './templates.ts';

/** Calendar event `status` (Newfies EVENT_STATUS). */
export const EventStatus = { Pending: 1, Completed: 2 } as const;
/** Alarm `status` (Newfies ALARM_STATUS); alarm requests use the same numbers (ALARMREQUEST_STATUS). */
export const AlarmStatus = { Pending: 1, InProcess: 2, Failure: 3, Retry: 4, Success: 5 } as const;
/** Alarm `result` (Newfies ALARM_RESULT); null: no result. */
export const AlarmResult = { Confirmed: 1, Cancelled: 2, Rescheduled: 3 } as const;
/** Alarm `method` (Newfies ALARM_METHOD). */
export const AlarmMethod = { Call: 1, Sms: 2, Email: 3 } as const;
/** A recurrence rule's `frequency` (dateutil's rrule names, as Newfies stores them). */
export const RuleFrequencies = ['YEARLY', 'MONTHLY', 'WEEKLY', 'DAILY', 'HOURLY', 'MINUTELY', 'SECONDLY'] as const;

export const calendarSettings = pgTable(
  'calendar_settings',
  {
    id: serial('id').primaryKey(),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    label: varchar('label', { length: 80 }).notNull().default(''),
    callerid: varchar('callerid', { length: 80 }).notNull().default(''),
    caller_name: varchar('caller_name', { length: 100 }).notNull().default(''),
    call_timeout: integer('call_timeout').notNull().default(60),
    survey_id: integer('survey_id').references(() => surveyTemplates.id, { onDelete: 'set null' }),
    aleg_gateway_id: integer('aleg_gateway_id').references(() => gateways.id, { onDelete: 'set null' }),
    sms_gateway_id: integer('sms_gateway_id').references(() => smsGateways.id, { onDelete: 'set null' }),
    voicemail: boolean('voicemail').notNull().default(false),
    amd_behavior: smallint('amd_behavior'),
    voicemail_audiofile_id: integer('voicemail_audiofile_id').references(() => audioFiles.id, { onDelete: 'set null' }),
    /** The voice campaign the engine places this setting's reminder calls in (engine/alarms). */
    campaign_id: integer('campaign_id').references(() => campaigns.id, { onDelete: 'set null' }),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [index('calendar_settings_user_idx').on(t.user_id)],
);

/** A calendar user (Newfies: a sub-user of its manager): here a record its owner keeps, with the profile fields. */
export const calendarUsers = pgTable(
  'calendar_users',
  {
    id: serial('id').primaryKey(),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    username: varchar('username', { length: 150 }).notNull(),
    first_name: varchar('first_name', { length: 150 }).notNull().default(''),
    last_name: varchar('last_name', { length: 150 }).notNull().default(''),
    email: varchar('email', { length: 254 }).notNull().default(''),
    calendar_setting_id: integer('calendar_setting_id').references(() => calendarSettings.id, { onDelete: 'set null' }),
    address: varchar('address', { length: 200 }).notNull().default(''),
    city: varchar('city', { length: 120 }).notNull().default(''),
    state: varchar('state', { length: 120 }).notNull().default(''),
    country: varchar('country', { length: 2 }).notNull().default(''),
    zip_code: varchar('zip_code', { length: 120 }).notNull().default(''),
    phone_no: varchar('phone_no', { length: 90 }).notNull().default(''),
    fax: varchar('fax', { length: 90 }).notNull().default(''),
    company_name: varchar('company_name', { length: 90 }).notNull().default(''),
    company_website: varchar('company_website', { length: 90 }).notNull().default(''),
    language: varchar('language', { length: 50 }).notNull().default(''),
    note: varchar('note', { length: 250 }).notNull().default(''),
    accountcode: varchar('accountcode', { length: 50 }).notNull().default(''),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [uniqueIndex('calendar_users_user_username_idx').on(t.user_id, t.username)],
);

export const calendars = pgTable(
  'calendars',
  {
    id: serial('id').primaryKey(),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    calendar_user_id: integer('calendar_user_id').references(() => calendarUsers.id, { onDelete: 'set null' }),
    name: varchar('name', { length: 200 }).notNull(),
    max_concurrent: integer('max_concurrent').notNull().default(0),
    created_date: createdDate(),
  },
  (t) => [index('calendars_user_idx').on(t.user_id)],
);

export const calendarRules = pgTable(
  'calendar_rules',
  {
    id: serial('id').primaryKey(),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    name: varchar('name', { length: 32 }).notNull(),
    description: text('description').notNull().default(''),
    frequency: varchar('frequency', { length: 10 }).notNull(),
    /** dateutil rrule parameters as Newfies writes them: `count:3;byweekday:0,2`. */
    params: text('params').notNull().default(''),
    created_date: createdDate(),
  },
  (t) => [index('calendar_rules_user_idx').on(t.user_id)],
);

export const calendarEvents = pgTable(
  'calendar_events',
  {
    id: serial('id').primaryKey(),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    calendar_id: integer('calendar_id').notNull().references(() => calendars.id, { onDelete: 'cascade' }),
    title: varchar('title', { length: 255 }).notNull(),
    description: text('description').notNull().default(''),
    start: timestamptz('start').notNull(),
    end: timestamptz('end').notNull(),
    creator_id: integer('creator_id').references(() => calendarUsers.id, { onDelete: 'set null' }),
    created_on: timestamptz('created_on').notNull().defaultNow(),
    end_recurring_period: timestamptz('end_recurring_period'),
    rule_id: integer('rule_id').references(() => calendarRules.id, { onDelete: 'set null' }),
    notify_count: integer('notify_count').notNull().default(0),
    data: jsonb('data'),
    status: smallint('status').notNull().default(EventStatus.Pending),
    parent_event_id: integer('parent_event_id'),
    occ_count: integer('occ_count').notNull().default(0),
  },
  (t) => [
    index('calendar_events_user_idx').on(t.user_id),
    index('calendar_events_calendar_idx').on(t.calendar_id),
    index('calendar_events_recurring_idx').on(t.start).where(sql`${t.status} = 1 and ${t.rule_id} is not null`),
  ],
);

export const alarms = pgTable(
  'alarms',
  {
    id: serial('id').primaryKey(),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    event_id: integer('event_id').notNull().references(() => calendarEvents.id, { onDelete: 'cascade' }),
    alarm_phonenumber: varchar('alarm_phonenumber', { length: 40 }),
    alarm_email: varchar('alarm_email', { length: 254 }),
    daily_start: time('daily_start').notNull().default('00:00:00'),
    daily_stop: time('daily_stop').notNull().default('23:59:59'),
    advance_notice: integer('advance_notice').notNull().default(0),
    maxretry: integer('maxretry').notNull().default(0),
    retry_delay: integer('retry_delay').notNull().default(0),
    num_attempt: integer('num_attempt').notNull().default(0),
    method: smallint('method').notNull().default(AlarmMethod.Call),
    /** The templates of the reminder's text (issue 17 item 7); null: the alarm's own text. */
    /** Newfies' alarm survey: stored and shown; the call plays the calendar setting's (migration 0033). */
    survey_id: integer('survey_id').references(() => surveyTemplates.id, { onDelete: 'set null' }),
    mail_template_id: integer('mail_template_id').references(() => mailTemplates.id, { onDelete: 'set null' }),
    sms_template_id: integer('sms_template_id').references(() => smsTemplates.id, { onDelete: 'set null' }),
    date_start_notice: timestamptz('date_start_notice').notNull(),
    status: smallint('status').notNull().default(AlarmStatus.Pending),
    result: smallint('result'),
    url_cancel: varchar('url_cancel', { length: 250 }),
    url_confirm: varchar('url_confirm', { length: 250 }),
    phonenumber_transfer: varchar('phonenumber_transfer', { length: 50 }),
    phonenumber_sms_failure: varchar('phonenumber_sms_failure', { length: 50 }),
    /** When the engine fires it next: date_start_notice − advance_notice, then each retry's time. */
    next_attempt_at: timestamptz('next_attempt_at').notNull(),
    /** Failed for good, it owes phonenumber_sms_failure an SMS not yet claimed (migration 0038). */
    sms_fallback_due: boolean('sms_fallback_due').notNull().default(false),
    created_date: createdDate(),
  },
  (t) => [
    index('alarms_user_idx').on(t.user_id),
    index('alarms_event_idx').on(t.event_id),
    index('alarms_due_idx').on(t.next_attempt_at).where(sql`${t.status} in (1, 4)`),
    index('alarms_sms_fallback_due_idx').on(t.id).where(sql`${t.sms_fallback_due}`),
  ],
);

export const alarmRequests = pgTable(
  'alarm_requests',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    alarm_id: integer('alarm_id').notNull().references(() => alarms.id, { onDelete: 'cascade' }),
    date: timestamptz('date').notNull(),
    method: smallint('method').notNull().default(AlarmMethod.Call),
    status: smallint('status').notNull().default(AlarmStatus.Pending),
    /** The call's Q.850 hangup cause (0 before the call ends, or for SMS and e-mail). */
    callstatus: integer('callstatus').notNull().default(0),
    duration: integer('duration').notNull().default(0),
    callrequest_id: bigint('callrequest_id', { mode: 'number' }).references(() => callrequests.id, { onDelete: 'set null' }),
    /** The reminder campaign's subscriber the call was placed for (no foreign key, as subscribers have none). */
    subscriber_id: bigint('subscriber_id', { mode: 'number' }),
    /** What happened, in words (the SMS or mail result, DNC, no gateway …). */
    detail: varchar('detail', { length: 200 }).notNull().default(''),
    /** The SMS it put in sms_messages, written with the message (before the gateway is asked): the attempt then takes its outcome from it (migration 0039). */
    sms_message_id: bigint('sms_message_id', { mode: 'number' }),
    created_date: createdDate(),
  },
  (t) => [
    index('alarm_requests_user_idx').on(t.user_id),
    index('alarm_requests_alarm_idx').on(t.alarm_id),
    index('alarm_requests_in_process_idx').on(t.subscriber_id).where(sql`${t.status} = 2`),
    index('alarm_requests_sms_in_process_idx').on(t.sms_message_id).where(sql`${t.status} = 2 and ${t.sms_message_id} is not null`),
  ],
);
