-- Contact caps across campaigns and legal calling hours (issue 16, items 3 and 4).
--
-- users.contact_caps: null (off) or {"attempts", "window_days", "quiet_days", "daily"} (each a
-- whole number or null); users.calling_hours: null (off) or {"start": "HH:MM", "end": "HH:MM"},
-- read in each contact's local time. Both are set by admins at /rest-api/accounts/; the
-- instance-wide ones are configuration (CONTACT_CAPS, CALLING_HOURS).
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "contact_caps" jsonb;
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "calling_hours" jsonb;

-- A claimed subscriber that a cap or the calling hours hold back stays PENDING: its
-- next_attempt_at moves to when it is allowed, and wait_reason says why ('attempts', 'daily',
-- 'quiet', 'hours'); null when it is not held. The partial index holds only the held ones: the
-- campaign read counts them, and a change of an account's settings releases them.
ALTER TABLE "subscribers" ADD COLUMN IF NOT EXISTS "wait_reason" varchar(20);
CREATE INDEX IF NOT EXISTS "subscribers_waiting_idx" ON "subscribers" USING btree ("campaign_id", "wait_reason") WHERE "wait_reason" IS NOT NULL;

-- The call history of a number, newest last: the caps count a number's attempts (callrequests,
-- CALLING ones included) in the window from it. Numbers compared bytewise (collation "C", as
-- subscribers.duplicate_contact: migration 0011), so the claim's comparison can use the index.
CREATE INDEX IF NOT EXISTS "callrequests_number_time_idx" ON "callrequests" USING btree (("phone_number" COLLATE "C"), "call_time");
