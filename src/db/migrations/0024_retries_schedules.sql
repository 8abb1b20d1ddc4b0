-- Issue 16, items 2 and 8–9: retries by cause, completion callbacks, calls at a set time,
-- recycling. Each column has a constant default (or none), so adding it rewrites no row
-- (PostgreSQL 11+), however many subscribers there are.

-- A campaign's retry rule per disposition: {"busy": {"attempts": 3, "interval": 300}, …};
-- null (the default) = maxretry/intervalretry for every cause, as before.
ALTER TABLE "campaigns" ADD COLUMN IF NOT EXISTS "retry_rules" jsonb;
-- Newfies' completion fields: call back answered subscribers who did not reach a completed section.
ALTER TABLE "campaigns" ADD COLUMN IF NOT EXISTS "completion_maxretry" integer DEFAULT 0 NOT NULL;
ALTER TABLE "campaigns" ADD COLUMN IF NOT EXISTS "completion_intervalretry" integer DEFAULT 900 NOT NULL;

-- How many completion callbacks a subscriber had; the disposition of its last call (recycle
-- filters on it); the instant before which it may not be called (appointment reminders).
ALTER TABLE "subscribers" ADD COLUMN IF NOT EXISTS "completion_attempt" integer DEFAULT 0 NOT NULL;
ALTER TABLE "subscribers" ADD COLUMN IF NOT EXISTS "last_disposition" varchar(20) DEFAULT '' NOT NULL;
ALTER TABLE "subscribers" ADD COLUMN IF NOT EXISTS "scheduled_at" timestamptz;

-- A section option: a call that passes through it asks to be called back N minutes after it ends.
ALTER TABLE "section_templates" ADD COLUMN IF NOT EXISTS "callback_minutes" integer;
