-- Appointment reminders (issue 17, item 8): Newfies-Dialer's appointment module. A calendar
-- setting says how reminders are made (caller id, survey, gateways; the engine keeps one voice
-- campaign per setting, `campaign_id`, so reminder calls are paced, windowed, DNC-checked and
-- billed as campaign calls); calendar users are the people a user keeps calendars for (records
-- owned by that user, not accounts that sign in); a calendar holds events (table
-- calendar_events: "events" is the activity log's), an event may recur by a rule, and an alarm
-- reminds of an event by call, SMS or e-mail; each attempt is an alarm request.
-- Every row carries its owner (user_id, copied from its parent) so that scoping is one index.
CREATE TABLE IF NOT EXISTS "calendar_settings" (
  "id" serial PRIMARY KEY,
  "user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "label" varchar(80) DEFAULT '' NOT NULL,
  "callerid" varchar(80) DEFAULT '' NOT NULL,
  "caller_name" varchar(100) DEFAULT '' NOT NULL,
  "call_timeout" integer DEFAULT 60 NOT NULL,
  "survey_id" integer REFERENCES "survey_templates"("id") ON DELETE SET NULL,
  "aleg_gateway_id" integer REFERENCES "gateways"("id") ON DELETE SET NULL,
  "sms_gateway_id" integer REFERENCES "sms_gateways"("id") ON DELETE SET NULL,
  "voicemail" boolean DEFAULT false NOT NULL,
  "amd_behavior" smallint,
  "voicemail_audiofile_id" integer REFERENCES "audio_files"("id") ON DELETE SET NULL,
  "campaign_id" integer REFERENCES "campaigns"("id") ON DELETE SET NULL,
  "created_date" timestamptz DEFAULT now() NOT NULL,
  "updated_date" timestamptz DEFAULT now() NOT NULL
);
CREATE INDEX IF NOT EXISTS "calendar_settings_user_idx" ON "calendar_settings" ("user_id");

CREATE TABLE IF NOT EXISTS "calendar_users" (
  "id" serial PRIMARY KEY,
  "user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "username" varchar(150) NOT NULL,
  "first_name" varchar(150) DEFAULT '' NOT NULL,
  "last_name" varchar(150) DEFAULT '' NOT NULL,
  "email" varchar(254) DEFAULT '' NOT NULL,
  "calendar_setting_id" integer REFERENCES "calendar_settings"("id") ON DELETE SET NULL,
  "address" varchar(200) DEFAULT '' NOT NULL,
  "city" varchar(120) DEFAULT '' NOT NULL,
  "state" varchar(120) DEFAULT '' NOT NULL,
  "country" varchar(2) DEFAULT '' NOT NULL,
  "zip_code" varchar(120) DEFAULT '' NOT NULL,
  "phone_no" varchar(90) DEFAULT '' NOT NULL,
  "fax" varchar(90) DEFAULT '' NOT NULL,
  "company_name" varchar(90) DEFAULT '' NOT NULL,
  "company_website" varchar(90) DEFAULT '' NOT NULL,
  "language" varchar(50) DEFAULT '' NOT NULL,
  "note" varchar(250) DEFAULT '' NOT NULL,
  "accountcode" varchar(50) DEFAULT '' NOT NULL,
  "created_date" timestamptz DEFAULT now() NOT NULL,
  "updated_date" timestamptz DEFAULT now() NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS "calendar_users_user_username_idx" ON "calendar_users" ("user_id", "username");

CREATE TABLE IF NOT EXISTS "calendars" (
  "id" serial PRIMARY KEY,
  "user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "calendar_user_id" integer REFERENCES "calendar_users"("id") ON DELETE SET NULL,
  "name" varchar(200) NOT NULL,
  "max_concurrent" integer DEFAULT 0 NOT NULL,
  "created_date" timestamptz DEFAULT now() NOT NULL
);
CREATE INDEX IF NOT EXISTS "calendars_user_idx" ON "calendars" ("user_id");

CREATE TABLE IF NOT EXISTS "calendar_rules" (
  "id" serial PRIMARY KEY,
  "user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "name" varchar(32) NOT NULL,
  "description" text DEFAULT '' NOT NULL,
  "frequency" varchar(10) NOT NULL,
  "params" text DEFAULT '' NOT NULL,
  "created_date" timestamptz DEFAULT now() NOT NULL
);
CREATE INDEX IF NOT EXISTS "calendar_rules_user_idx" ON "calendar_rules" ("user_id");

CREATE TABLE IF NOT EXISTS "calendar_events" (
  "id" serial PRIMARY KEY,
  "user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "calendar_id" integer NOT NULL REFERENCES "calendars"("id") ON DELETE CASCADE,
  "title" varchar(255) NOT NULL,
  "description" text DEFAULT '' NOT NULL,
  "start" timestamptz NOT NULL,
  "end" timestamptz NOT NULL,
  "creator_id" integer REFERENCES "calendar_users"("id") ON DELETE SET NULL,
  "created_on" timestamptz DEFAULT now() NOT NULL,
  "end_recurring_period" timestamptz,
  "rule_id" integer REFERENCES "calendar_rules"("id") ON DELETE SET NULL,
  "notify_count" integer DEFAULT 0 NOT NULL,
  "data" jsonb,
  "status" smallint DEFAULT 1 NOT NULL,
  "parent_event_id" integer REFERENCES "calendar_events"("id") ON DELETE SET NULL,
  "occ_count" integer DEFAULT 0 NOT NULL
);
CREATE INDEX IF NOT EXISTS "calendar_events_user_idx" ON "calendar_events" ("user_id");
CREATE INDEX IF NOT EXISTS "calendar_events_calendar_idx" ON "calendar_events" ("calendar_id");
-- The engine's recurrence: PENDING (1) events with a rule, by start.
CREATE INDEX IF NOT EXISTS "calendar_events_recurring_idx" ON "calendar_events" ("start") WHERE "status" = 1 AND "rule_id" IS NOT NULL;

-- mail_template_id and sms_template_id name the templates of issue 17 item 7 (migration 0027);
-- null means the alarm's own text.
CREATE TABLE IF NOT EXISTS "alarms" (
  "id" serial PRIMARY KEY,
  "user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "event_id" integer NOT NULL REFERENCES "calendar_events"("id") ON DELETE CASCADE,
  "alarm_phonenumber" varchar(40),
  "alarm_email" varchar(254),
  "daily_start" time DEFAULT '00:00:00' NOT NULL,
  "daily_stop" time DEFAULT '23:59:59' NOT NULL,
  "advance_notice" integer DEFAULT 0 NOT NULL,
  "maxretry" integer DEFAULT 0 NOT NULL,
  "retry_delay" integer DEFAULT 0 NOT NULL,
  "num_attempt" integer DEFAULT 0 NOT NULL,
  "method" smallint DEFAULT 1 NOT NULL,
  "mail_template_id" integer REFERENCES "mail_templates"("id") ON DELETE SET NULL,
  "sms_template_id" integer REFERENCES "sms_templates"("id") ON DELETE SET NULL,
  "date_start_notice" timestamptz NOT NULL,
  "status" smallint DEFAULT 1 NOT NULL,
  "result" smallint,
  "url_cancel" varchar(250),
  "url_confirm" varchar(250),
  "phonenumber_transfer" varchar(50),
  "phonenumber_sms_failure" varchar(50),
  "next_attempt_at" timestamptz NOT NULL,
  "created_date" timestamptz DEFAULT now() NOT NULL
);
CREATE INDEX IF NOT EXISTS "alarms_user_idx" ON "alarms" ("user_id");
CREATE INDEX IF NOT EXISTS "alarms_event_idx" ON "alarms" ("event_id");
-- The engine's claim: PENDING (1) and RETRY (4) alarms by due time.
CREATE INDEX IF NOT EXISTS "alarms_due_idx" ON "alarms" ("next_attempt_at") WHERE "status" IN (1, 4);

CREATE TABLE IF NOT EXISTS "alarm_requests" (
  "id" bigserial PRIMARY KEY,
  "user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "alarm_id" integer NOT NULL REFERENCES "alarms"("id") ON DELETE CASCADE,
  "date" timestamptz NOT NULL,
  "method" smallint DEFAULT 1 NOT NULL,
  "status" smallint DEFAULT 1 NOT NULL,
  "callstatus" integer DEFAULT 0 NOT NULL,
  "duration" integer DEFAULT 0 NOT NULL,
  "callrequest_id" bigint REFERENCES "callrequests"("id") ON DELETE SET NULL,
  "subscriber_id" bigint,
  "detail" varchar(200) DEFAULT '' NOT NULL,
  "created_date" timestamptz DEFAULT now() NOT NULL
);
CREATE INDEX IF NOT EXISTS "alarm_requests_user_idx" ON "alarm_requests" ("user_id");
CREATE INDEX IF NOT EXISTS "alarm_requests_alarm_idx" ON "alarm_requests" ("alarm_id");
-- The engine's settle: the IN_PROCESS (2) requests waiting for their call.
CREATE INDEX IF NOT EXISTS "alarm_requests_in_process_idx" ON "alarm_requests" ("subscriber_id") WHERE "status" = 2;
