-- A recording whose call or owner is deleted (a campaign or a user deleted) was deleted with it by
-- the cascade, and its file stayed in DATA_DIR for good. The row now stays, without its call or
-- owner, until the engine's recording pass deletes the file and then the row.
ALTER TABLE "recordings" ALTER COLUMN "callrequest_id" DROP NOT NULL;
ALTER TABLE "recordings" ALTER COLUMN "user_id" DROP NOT NULL;
ALTER TABLE "recordings" DROP CONSTRAINT IF EXISTS "recordings_callrequest_id_fkey";
ALTER TABLE "recordings" ADD CONSTRAINT "recordings_callrequest_id_fkey" FOREIGN KEY ("callrequest_id") REFERENCES "callrequests"("id") ON DELETE SET NULL;
ALTER TABLE "recordings" DROP CONSTRAINT IF EXISTS "recordings_user_id_fkey";
ALTER TABLE "recordings" ADD CONSTRAINT "recordings_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE SET NULL;
CREATE INDEX IF NOT EXISTS "recordings_orphans_idx" ON "recordings" ("id") WHERE "callrequest_id" IS NULL OR "user_id" IS NULL;
