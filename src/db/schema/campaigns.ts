/**
 * Voice campaigns and what the engine writes (issue 5): campaigns and their phonebooks,
 * subscribers, call requests, per-call survey results, CDRs, DIDs. The gateways they dial
 * through are in gateways.ts.
 */
import { sql } from 'drizzle-orm';
import {
  bigint,
  bigserial,
  boolean,
  index,
  integer,
  jsonb,
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
import { calleridGroups, dncLists, phonebooks } from './contacts.ts';
import { audioFiles, sectionTemplates, surveyTemplates } from './ivr.ts';
import { gateways, smsGateways } from './gateways.ts';

/** Campaign `status` (contract §4). */
export const CampaignStatus = { New: 0, Start: 1, Pause: 2, Abort: 3, End: 4 } as const;

/** Campaign `dial_method` (contract §4): how the pace is set. */
export const DialMethod = { Broadcast: 1, Progressive: 2, Power: 3 } as const;

/**
 * Campaign `amd_behavior` (contract §4): what an answered call does by its AMD verdict. Survey
 * plays the survey to people and the voicemail audio to machines; PeopleOnly hangs up on
 * machines; MachinesOnly hangs up on people and leaves the voicemail audio.
 */
export const AmdBehavior = { Survey: 1, PeopleOnly: 2, MachinesOnly: 3 } as const;

export const campaigns = pgTable(
  'campaigns',
  {
    id: serial('id').primaryKey(),
    campaign_code: varchar('campaign_code', { length: 20 }).notNull().unique(),
    name: varchar('name', { length: 100 }).notNull(),
    description: text('description').notNull().default(''),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    status: smallint('status').notNull().default(CampaignStatus.New),
    callerid: varchar('callerid', { length: 80 }).notNull().default(''),
    caller_name: varchar('caller_name', { length: 100 }).notNull().default(''),
    callerid_group_id: integer('callerid_group_id').references(() => calleridGroups.id, { onDelete: 'set null' }),
    ...callingWindowColumns(),
    /** Call starts per minute (contract §5). */
    frequency: integer('frequency').notNull().default(10),
    callmaxduration: integer('callmaxduration').notNull().default(1800),
    maxretry: integer('maxretry').notNull().default(0),
    intervalretry: integer('intervalretry').notNull().default(300),
    calltimeout: integer('calltimeout').notNull().default(45),
    max_aleg: integer('max_aleg').notNull().default(100),
    max_xfer: integer('max_xfer').notNull().default(0),
    dial_method: smallint('dial_method').notNull().default(DialMethod.Broadcast),
    agent_dial_rate: numeric('agent_dial_rate', { precision: 6, scale: 2 }).notNull().default('1.00'),
    aleg_gateway_id: integer('aleg_gateway_id').references(() => gateways.id, { onDelete: 'restrict' }),
    /** The SMS gateway for send-SMS sections. */
    sms_gateway_id: integer('sms_gateway_id').references(() => smsGateways.id, { onDelete: 'set null' }),
    /** The survey template to run (`object_id` in the API). */
    survey_id: integer('survey_id').references(() => surveyTemplates.id, { onDelete: 'set null' }),
    /** The survey as it was at the first start (contract §5: later edits do not change it). */
    survey_snapshot: jsonb('survey_snapshot'),
    extra_data: text('extra_data').notNull().default(''),
    voicemail: boolean('voicemail').notNull().default(false),
    amd_behavior: smallint('amd_behavior').notNull().default(AmdBehavior.Survey),
    voicemail_audiofile_id: integer('voicemail_audiofile_id').references(() => audioFiles.id, { onDelete: 'set null' }),
    dnc_id: integer('dnc_id').references(() => dncLists.id, { onDelete: 'set null' }),
    timezone_dialing: boolean('timezone_dialing').notNull().default(false),
    completion_enabled: boolean('completion_enabled').notNull().default(false),
    /** Record whole calls (migration 0026): both legs where the driver can. */
    record_calls: boolean('record_calls').notNull().default(false),
    /** Callbacks of answered subscribers who did not reach a completed section (with completion_enabled). */
    completion_maxretry: integer('completion_maxretry').notNull().default(0),
    completion_intervalretry: integer('completion_intervalretry').notNull().default(900),
    /** A retry rule per disposition (campaign/retry-rules.ts); null = maxretry/intervalretry for all. */
    retry_rules: jsonb('retry_rules'),
    ...campaignLifeColumns(),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [
    uniqueIndex('campaigns_user_name_idx').on(t.user_id, t.name),
    index('campaigns_status_idx').on(t.status),
    // migration 0027: the campaigns that ran a survey (surveyaggregate)
    index('campaigns_survey_idx').on(t.survey_id),
  ],
);

export const campaignPhonebooks = pgTable(
  'campaign_phonebooks',
  {
    campaign_id: integer('campaign_id').notNull().references(() => campaigns.id, { onDelete: 'cascade' }),
    phonebook_id: integer('phonebook_id').notNull().references(() => phonebooks.id, { onDelete: 'restrict' }),
  },
  (t) => [primaryKey({ columns: [t.campaign_id, t.phonebook_id] }), index('campaign_phonebooks_phonebook_idx').on(t.phonebook_id)],
);

/** Subscriber `status` (contract §4). */
export const SubscriberStatus = {
  Pending: 1,
  Pause: 2,
  Abort: 3,
  Fail: 4,
  Sent: 5,
  InProcess: 6,
  NotAuthorized: 7,
  Completed: 8,
} as const;

export const subscribers = pgTable(
  'subscribers',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    // No foreign keys: checked per row they doubled the spool's time. Migration 0011 keeps the
    // same rules set-based (a campaign's delete takes its subscribers, a contact's clears
    // contact_id) and the spool locks its campaign row once.
    campaign_id: integer('campaign_id').notNull(),
    ...subscriberColumns(SubscriberStatus.Pending),
    /** Completion callbacks made so far (campaign completion_maxretry). */
    completion_attempt: integer('completion_attempt').notNull().default(0),
    /** The CDR disposition of its last call ('' before any): recycle filters on it. */
    last_disposition: varchar('last_disposition', { length: 20 }).notNull().default(''),
    /** Not called before this instant (appointment reminders); next_attempt_at is set from it. */
    scheduled_at: timestamptz('scheduled_at'),
    /** Why a PENDING subscriber is held by the contact caps or calling hours; null: not held (migration 0025). */
    wait_reason: varchar('wait_reason', { length: 20 }),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [
    uniqueIndex('subscribers_campaign_number_idx').on(t.campaign_id, t.duplicate_contact),
    index('subscribers_campaign_key_idx').on(t.campaign_id, t.phone_key),
    index('subscribers_due_idx').on(t.campaign_id, t.status, t.next_attempt_at),
    index('subscribers_waiting_idx').on(t.campaign_id, t.wait_reason).where(sql`${t.wait_reason} is not null`),
  ],
);

/** Callrequest `status` (contract §4). */
export const CallRequestStatus = {
  Pending: 1,
  Failure: 2,
  Retry: 3,
  Success: 4,
  Abort: 5,
  Pause: 6,
  Calling: 7,
} as const;

export const callrequests = pgTable(
  'callrequests',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    campaign_id: integer('campaign_id').notNull().references(() => campaigns.id, { onDelete: 'cascade' }),
    subscriber_id: bigint('subscriber_id', { mode: 'number' }).references(() => subscribers.id, { onDelete: 'set null' }),
    status: smallint('status').notNull().default(CallRequestStatus.Pending),
    /** The telephony call id (the A-leg's uuid). */
    call_uuid: varchar('call_uuid', { length: 64 }).notNull(),
    phone_number: varchar('phone_number', { length: 21 }).notNull(),
    /** The dialled number's key (contract §1; migration 0029): what the contact caps count by. */
    phone_key: varchar('phone_key', { length: 20 }).notNull(),
    callerid: varchar('callerid', { length: 80 }).notNull().default(''),
    /** The caller id group's number shown (migration 0026; no foreign key); null: the campaign's callerid. */
    callerid_id: integer('callerid_id'),
    gateway_id: integer('gateway_id').references(() => gateways.id, { onDelete: 'set null' }),
    /** Which attempt of the subscriber this is (1 = first). */
    attempt: integer('attempt').notNull().default(1),
    /** The engine process that placed it, so a restart can close its calls in flight. */
    engine_id: varchar('engine_id', { length: 64 }).notNull().default(''),
    hangup_cause: varchar('hangup_cause', { length: 60 }).notNull().default(''),
    hangup_cause_q850: integer('hangup_cause_q850'),
    completed: boolean('completed').notNull().default(false),
    /** Answered, and not by a machine: what ends a contact cap's quiet period (migration 0034); null before it: read from the CDR. */
    conversation: boolean('conversation'),
    call_time: timestamptz('call_time'),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [
    index('callrequests_campaign_idx').on(t.campaign_id, t.status),
    index('callrequests_in_flight_idx').on(t.gateway_id, t.campaign_id).where(sql`${t.status} = ${sql.raw(String(CallRequestStatus.Calling))}`),
    index('callrequests_subscriber_idx').on(t.subscriber_id),
    index('callrequests_key_time_idx').on(t.phone_key, t.call_time),
  ],
);

/** The survey's answers, per call (readable at /rest-api/callrequest/<id>/results/). */
export const callResults = pgTable(
  'call_results',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    callrequest_id: bigint('callrequest_id', { mode: 'number' })
      .notNull()
      .references(() => callrequests.id, { onDelete: 'cascade' }),
    section_id: integer('section_id').references(() => sectionTemplates.id, { onDelete: 'set null' }),
    section_order: integer('section_order'),
    question: text('question').notNull().default(''),
    response: text('response').notNull().default(''),
    record_file: varchar('record_file', { length: 255 }).notNull().default(''),
    created_date: createdDate(),
  },
  (t) => [index('call_results_callrequest_idx').on(t.callrequest_id)],
);

/** CDR `leg_type` and `amd_status` (contract §4). */
export const LegType = { A: 1, B: 2 } as const;
export const AmdStatus = { NoDetect: 0, Person: 1, Machine: 2, Unsure: 3 } as const;

export const cdrs = pgTable(
  'cdrs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    callid: varchar('callid', { length: 64 }).notNull(),
    callerid: varchar('callerid', { length: 80 }).notNull().default(''),
    phone_number: varchar('phone_number', { length: 40 }).notNull(),
    starting_date: timestamptz('starting_date').notNull(),
    duration: integer('duration').notNull().default(0),
    billsec: integer('billsec').notNull().default(0),
    billed_duration: integer('billed_duration').notNull().default(0),
    call_cost: numeric('call_cost', { precision: 16, scale: 5 }).notNull().default('0'),
    hangup_cause_q850: integer('hangup_cause_q850').notNull().default(0),
    disposition: varchar('disposition', { length: 20 }).notNull().default(''),
    leg_type: smallint('leg_type').notNull().default(LegType.A),
    amd_status: smallint('amd_status').notNull().default(AmdStatus.NoDetect),
    callrequest_id: bigint('callrequest_id', { mode: 'number' }).references(() => callrequests.id, { onDelete: 'set null' }),
    campaign_id: integer('campaign_id').references(() => campaigns.id, { onDelete: 'cascade' }),
    subscriber_id: bigint('subscriber_id', { mode: 'number' }),
    contact_id: integer('contact_id'),
    user_id: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    created_date: createdDate(),
  },
  (t) => [
    index('cdrs_campaign_idx').on(t.campaign_id),
    index('cdrs_starting_date_idx').on(t.starting_date),
    index('cdrs_callrequest_idx').on(t.callrequest_id),
    index('cdrs_user_idx').on(t.user_id),
  ],
);

export const dids = pgTable(
  'dids',
  {
    id: serial('id').primaryKey(),
    did_number: varchar('did_number', { length: 21 }).notNull().unique(),
    user_id: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    campaign_id: integer('campaign_id').references(() => campaigns.id, { onDelete: 'set null' }),
    created_date: createdDate(),
    updated_date: updatedDate(),
  },
  (t) => [index('dids_user_idx').on(t.user_id)],
);


/** Engines alive on this database: a CALLING call of an engine whose heartbeat is stale is recovered. */
export const engineHeartbeats = pgTable('engine_heartbeats', {
  engine_id: varchar('engine_id', { length: 64 }).primaryKey(),
  heartbeat_at: timestamptz('heartbeat_at').notNull(),
});

/** Recording `kind`: a record section's message, or the whole call (campaign `record_calls`). */
export const RecordingKind = { Message: 'message', Call: 'call' } as const;

/** A call's recordings (migration 0026), listed at /rest-api/callrequest/<id>/recordings/. */
export const recordings = pgTable(
  'recordings',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    /** Null once the call (its campaign) is deleted: the engine then deletes the file and the row (migration 0031). */
    callrequest_id: bigint('callrequest_id', { mode: 'number' }).references(() => callrequests.id, { onDelete: 'set null' }),
    /** Null once the owner is deleted: likewise. */
    user_id: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    kind: varchar('kind', { length: 20 }).notNull(),
    /** Relative to DATA_DIR. */
    file: varchar('file', { length: 255 }).notNull(),
    seconds: integer('seconds').notNull().default(0),
    /** The call's end by the engine's clock: retention counts from it. */
    created_date: createdDate(),
  },
  (t) => [
    index('recordings_callrequest_idx').on(t.callrequest_id),
    index('recordings_user_created_idx').on(t.user_id, t.created_date),
    index('recordings_orphans_idx').on(t.id).where(sql`${t.callrequest_id} is null or ${t.user_id} is null`),
  ],
);
