-- Issue 16, items 5 and 6: caller-id rotation and recordings you can get.

-- A caller id group's rotation rules: at most daily_cap calls per number a day (null: no cap);
-- a number whose answer rate today falls under min_answer_rate (0–1, null: no floor), once it has
-- ended answer_rate_min_calls calls today, rests for a day.
ALTER TABLE "callerid_groups" ADD COLUMN IF NOT EXISTS "daily_cap" integer;
ALTER TABLE "callerid_groups" ADD COLUMN IF NOT EXISTS "min_answer_rate" numeric(4, 3);
ALTER TABLE "callerid_groups" ADD COLUMN IF NOT EXISTS "answer_rate_min_calls" integer DEFAULT 20 NOT NULL;

-- Each number's use: today's counters (usage_day is the day they count; an older day reads as 0),
-- all-time totals, and the end of its rest. Written by the claim (calls) and the outcome (ended,
-- answered) in their own transactions: one statement per batch, not a query per call.
ALTER TABLE "callerids" ADD COLUMN IF NOT EXISTS "usage_day" date;
ALTER TABLE "callerids" ADD COLUMN IF NOT EXISTS "calls_today" integer DEFAULT 0 NOT NULL;
ALTER TABLE "callerids" ADD COLUMN IF NOT EXISTS "ended_today" integer DEFAULT 0 NOT NULL;
ALTER TABLE "callerids" ADD COLUMN IF NOT EXISTS "answered_today" integer DEFAULT 0 NOT NULL;
ALTER TABLE "callerids" ADD COLUMN IF NOT EXISTS "calls_total" bigint DEFAULT 0 NOT NULL;
ALTER TABLE "callerids" ADD COLUMN IF NOT EXISTS "answered_total" bigint DEFAULT 0 NOT NULL;
ALTER TABLE "callerids" ADD COLUMN IF NOT EXISTS "resting_until" timestamptz;

-- The group number a call showed (null: the campaign's callerid). No foreign key: checked per
-- inserted callrequest it would slow every claim; a deleted number simply stops being counted.
ALTER TABLE "callrequests" ADD COLUMN IF NOT EXISTS "callerid_id" integer;

-- A campaign option: record whole calls (both legs where the driver can).
ALTER TABLE "campaigns" ADD COLUMN IF NOT EXISTS "record_calls" boolean DEFAULT false NOT NULL;

-- Per user: recordings older than this many days are deleted, files and rows (null: kept).
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "recording_retention_days" integer;

-- Every recording of a call: a record section's message ('message') or the whole call ('call').
-- `file` is relative to DATA_DIR. created_date is the call's end by the engine's clock.
CREATE TABLE IF NOT EXISTS "recordings" (
  "id" bigserial PRIMARY KEY NOT NULL,
  "callrequest_id" bigint NOT NULL REFERENCES "callrequests"("id") ON DELETE CASCADE,
  "user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
  "kind" varchar(20) NOT NULL,
  "file" varchar(255) NOT NULL,
  "seconds" integer DEFAULT 0 NOT NULL,
  "created_date" timestamptz DEFAULT now() NOT NULL
);
CREATE INDEX IF NOT EXISTS "recordings_callrequest_idx" ON "recordings" ("callrequest_id");
-- Retention reads a user's oldest recordings first.
CREATE INDEX IF NOT EXISTS "recordings_user_created_idx" ON "recordings" ("user_id", "created_date");
