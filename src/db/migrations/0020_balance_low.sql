-- balance.low (issue 14): a per-account threshold (set by admins at /rest-api/accounts/); a
-- balance change that takes the balance from at or above it to below it writes one event.
-- NULL: no threshold, no event.
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "balance_low_threshold" numeric(16, 5);
