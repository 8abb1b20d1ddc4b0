-- A call alarm that failed for good with a phonenumber_sms_failure owes that number an SMS. The
-- debt is written with the failure, in the same statement (src/engine/alarms/store.ts
-- settleAttempts), and paid by a later claim (claimSmsFallbacks), so a crash or a lost answer
-- between the two no longer loses the fallback. The partial index keeps the claim's scan to the
-- alarms that owe one.
ALTER TABLE "alarms" ADD COLUMN IF NOT EXISTS "sms_fallback_due" boolean NOT NULL DEFAULT false;
CREATE INDEX IF NOT EXISTS "alarms_sms_fallback_due_idx" ON "alarms" ("id") WHERE "sms_fallback_due";
