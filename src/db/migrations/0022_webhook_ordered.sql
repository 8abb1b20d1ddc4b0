-- A webhook's deliveries in order, one at a time (ordered, the default), or up to sixteen at a
-- time for a receiver that does not need the order (it sorts by the event id if it cares): the
-- only way one webhook keeps up with an engine writing ten thousand events a second.
ALTER TABLE "webhooks" ADD COLUMN IF NOT EXISTS "ordered" boolean DEFAULT true NOT NULL;
