-- A reminder's SMS attempt names the message it put in sms_messages, written by the statement that
-- inserts the message, so before the gateway is asked (src/engine/alarms/store.ts
-- insertAlarmMessage). Such an attempt then takes its outcome from its message alone
-- (settleSmsAttempts): sent is SUCCESS, even when its engine died before it recorded the attempt;
-- a message its engine left 'unsent' (ENGINE_RESTART, CLAIM_LOST) may have been sent, so the
-- attempt fails for good and is never sent again. Before, such an attempt waited ten minutes, was
-- failed, and its alarm retried: the reminder sent twice. The partial index keeps each pass's look
-- at those attempts to the ones in process.
ALTER TABLE "alarm_requests" ADD COLUMN IF NOT EXISTS "sms_message_id" bigint;
CREATE INDEX IF NOT EXISTS "alarm_requests_sms_in_process_idx" ON "alarm_requests" ("sms_message_id") WHERE "status" = 2 AND "sms_message_id" IS NOT NULL;
