-- Which server process holds a webhook's lease (lease_until), so that only it renews the lease,
-- moves the cursor and releases it. The lease is short and renewed while the process sends
-- (src/webhooks/dispatcher.ts): a process killed mid-delivery holds its webhooks seconds, not a
-- minute, and one whose sending outlasts a lease keeps it rather than sharing it with another.
ALTER TABLE "webhooks" ADD COLUMN IF NOT EXISTS "lease_owner" varchar(40);
