-- The dialer engine (issue 5): engine heartbeats for crash recovery on a shared PostgreSQL, and
-- partial indexes so that claiming due subscribers reads only pending rows in claim order.
CREATE TABLE IF NOT EXISTS "engine_heartbeats" (
	"engine_id" varchar(64) PRIMARY KEY NOT NULL,
	"heartbeat_at" timestamp with time zone NOT NULL
);
CREATE INDEX IF NOT EXISTS "subscribers_claim_new_idx" ON "subscribers" USING btree ("campaign_id","id") WHERE "status" = 1 AND "count_attempt" = 0;
CREATE INDEX IF NOT EXISTS "subscribers_claim_retry_idx" ON "subscribers" USING btree ("campaign_id","next_attempt_at") WHERE "status" = 1 AND "count_attempt" > 0;
