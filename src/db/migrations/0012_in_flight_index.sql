-- Calls in flight (CALLING, status 7) are counted at each claim of a campaign with a line cap
-- (max_aleg, the gateway's maximum_call) and read by crash recovery. They are a few hundred
-- among millions of callrequests. The index on (status, engine_id) held every callrequest and
-- gained an entry at each outcome; its CALLING range kept every finished call's old entry until
-- VACUUM, so counting read all of them (a capped claim slowed as the campaign went on). This
-- partial index holds CALLING rows only: finished calls add nothing to it, and their old
-- entries are marked dead by the first count that passes them and skipped after.
DROP INDEX IF EXISTS "callrequests_calling_idx";
CREATE INDEX IF NOT EXISTS "callrequests_in_flight_idx" ON "callrequests" USING btree ("gateway_id","campaign_id") WHERE "status" = 7;
