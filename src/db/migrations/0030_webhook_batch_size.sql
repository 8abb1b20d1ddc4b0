-- Up to batch_size events in one delivery, as a JSON array (1, the default: each event on its
-- own, as an object). A receiver that can take arrays costs the sender and itself one request
-- per batch instead of one per event: the way a webhook keeps up with an engine writing
-- thousands of events a second on a small machine without slowing it.
ALTER TABLE "webhooks" ADD COLUMN IF NOT EXISTS "batch_size" integer DEFAULT 1 NOT NULL;
ALTER TABLE "webhooks" DROP CONSTRAINT IF EXISTS "webhooks_batch_size_check";
ALTER TABLE "webhooks" ADD CONSTRAINT "webhooks_batch_size_check" CHECK ("batch_size" BETWEEN 1 AND 500);
