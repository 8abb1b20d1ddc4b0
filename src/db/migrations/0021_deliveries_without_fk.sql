-- A webhook delivery no longer references its event by a foreign key. With it, pruning the log
-- (an hour's worth of events at a time) made PostgreSQL look for each deleted event's deliveries
-- one by one, by a column no index leads with: a scan of the delivery history per event.
-- pruneEvents (src/campaign/events.ts) deletes the deliveries of the pruned period itself, in
-- one statement, before the events.
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT IF EXISTS "webhook_deliveries_event_id_events_id_fk";
