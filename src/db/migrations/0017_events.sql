-- The event log (issue 14): one row per state change, written in the transaction of the change,
-- so an event exists exactly when its change committed. Readers (webhook fan-out, the live
-- stream, pollers) read it in commit order: by (txid, id), only below the oldest transaction
-- still running (src/campaign/events.ts), so a row committed late is never skipped.
CREATE TABLE IF NOT EXISTS "events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"txid" bigint DEFAULT (pg_current_xact_id()::text)::bigint NOT NULL,
	"type" varchar(64) NOT NULL,
	"user_id" integer,
	"campaign_id" integer,
	"data" jsonb NOT NULL,
	"created" timestamp with time zone DEFAULT now() NOT NULL
);
CREATE INDEX IF NOT EXISTS "events_order_idx" ON "events" USING btree ("txid","id");
CREATE INDEX IF NOT EXISTS "events_created_idx" ON "events" USING btree ("created");

-- Webhook endpoints (resource /rest-api/webhook/), owner-scoped. `cursor_txid`/`cursor_id` is
-- the last event fanned out to it; `failing_since` when deliveries started failing;
-- `lease_until` while a server process is sending its deliveries (one at a time, in order).
CREATE TABLE IF NOT EXISTS "webhooks" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"url" varchar(2000) NOT NULL,
	"events" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"description" varchar(500) DEFAULT '' NOT NULL,
	"active" boolean DEFAULT true NOT NULL,
	"secret" varchar(100) NOT NULL,
	"cursor_txid" bigint DEFAULT 0 NOT NULL,
	"cursor_id" bigint DEFAULT 0 NOT NULL,
	"failing_since" timestamp with time zone,
	"lease_until" timestamp with time zone,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;

-- One delivery of one event to one webhook, with its latest attempt. At least once: a
-- delivery is leased (next_attempt moved ahead) before it is sent and settled after.
CREATE TABLE IF NOT EXISTS "webhook_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"webhook_id" integer NOT NULL,
	"event_id" bigint NOT NULL,
	"status" varchar(16) DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt" timestamp with time zone DEFAULT now() NOT NULL,
	"response_status" integer,
	"latency_ms" integer,
	"response_excerpt" varchar(500),
	"error" varchar(500),
	"delivered_at" timestamp with time zone,
	"created" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "webhook_deliveries_once" UNIQUE("webhook_id","event_id")
);
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_webhook_id_webhooks_id_fk" FOREIGN KEY ("webhook_id") REFERENCES "public"."webhooks"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "public"."events"("id") ON DELETE cascade ON UPDATE no action;
CREATE INDEX IF NOT EXISTS "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("webhook_id","id") WHERE "status" = 'pending';

-- Each event wakes the readers once per transaction (the live stream, the webhook dispatcher).
CREATE OR REPLACE FUNCTION "events_notify"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_notify('events', '');
	RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS "events_notify" ON "events";
CREATE TRIGGER "events_notify" AFTER INSERT ON "events" FOR EACH STATEMENT EXECUTE FUNCTION "events_notify"();
