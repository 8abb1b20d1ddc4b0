-- Contact caps count a number's calls by its key (issue 16 items 1 and 3; contract §1), not by
-- the number as written: `2035550101` and `+12035550101` are one number to the caps as they are
-- to DNC. Each call request keeps the key of the number it dialled (the subscriber's), and the
-- caps' index moves from the number as written to the key.
--
-- Existing rows get their subscriber's key, and the digits of their number when the subscriber
-- is gone. The column is filled the way migration 0023 filled the others (generated while the
-- table is rewritten once, then a plain column), then corrected from the subscribers in one
-- UPDATE of only the rows whose key differs (numbers written nationally under a country).
ALTER TABLE "callrequests" ADD COLUMN "phone_key" varchar(20) COLLATE "C" NOT NULL
  GENERATED ALWAYS AS (regexp_replace("phone_number", '[^0-9]', '', 'g')) STORED;
ALTER TABLE "callrequests" ALTER COLUMN "phone_key" DROP EXPRESSION;
UPDATE "callrequests" r SET "phone_key" = s."phone_key"
  FROM "subscribers" s
  WHERE s."id" = r."subscriber_id" AND s."phone_key" <> r."phone_key";
DROP INDEX IF EXISTS "callrequests_number_time_idx";
CREATE INDEX "callrequests_key_time_idx" ON "callrequests" USING btree ("phone_key", "call_time");
