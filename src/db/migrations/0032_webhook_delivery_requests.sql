-- A delivery is one request: a webhook with a batch_size above 1 sends up to that many events in
-- one, and its history now keeps one row for it (event_id: its first event; event_ids: all of
-- them, in order) instead of a row per event. A row per event made PostgreSQL write as many rows
-- as the engine wrote events, which on a busy machine slowed the engine by a tenth on its own.
-- A failed delivery waits, and is retried or redelivered, whole, as it was sent.
ALTER TABLE "webhook_deliveries" ADD COLUMN IF NOT EXISTS "event_ids" bigint[];
