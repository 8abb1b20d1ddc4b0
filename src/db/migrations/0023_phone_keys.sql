-- One identity per phone number (issue 16, item 1; contract §1). Every stored number gets a key,
-- `phone_key`: its E.164 form without the '+', or its digits when it cannot be parsed; numbers
-- are compared by key everywhere (DNC, one subscriber per number, time zones, caller ids, caps).
-- The application computes keys when it writes a number (src/http/phone.ts, phoneKey), with
-- libphonenumber, which SQL cannot call. For the rows already here this migration stores their
-- digits, which is the key phoneKey gives every number written with '+', and every number when
-- no country applies (DEFAULT_COUNTRY unset, no account's default_country): that was the rule
-- until now (numbers without '+' were read as international). Numbers written nationally under a
-- country are made E.164 by `campaign-dialer phone rekey` (src/resources/phone/phone.rekey.ts).
--
-- Fast on large tables: a column added as GENERATED … STORED is filled while the table is
-- rewritten once (no UPDATE, no dead rows), and DROP EXPRESSION then makes it a plain column
-- the application writes (PostgreSQL 13+; metadata only). dnc_contacts already had the digits
-- as a generated column with its index: it becomes phone_key in place, without a rewrite.
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "default_country" varchar(2);

ALTER TABLE "dnc_contacts" ALTER COLUMN "digits" DROP EXPRESSION;
ALTER TABLE "dnc_contacts" RENAME COLUMN "digits" TO "phone_key";
ALTER TABLE "dnc_contacts" ALTER COLUMN "phone_key" SET NOT NULL;
ALTER INDEX "dnc_contacts_digits_dnc_idx" RENAME TO "dnc_contacts_phone_key_dnc_idx";

-- Keys compare bytewise (collation "C"), as numbers do since migration 0011.
ALTER TABLE "contacts" ADD COLUMN "phone_key" varchar(20) COLLATE "C" NOT NULL
  GENERATED ALWAYS AS (regexp_replace("contact", '[^0-9]', '', 'g')) STORED;
ALTER TABLE "contacts" ALTER COLUMN "phone_key" DROP EXPRESSION;
-- The spool and the CSV import look numbers up by key within a phonebook; nothing looks them up
-- by the number as written any more, so that index is replaced rather than added to.
DROP INDEX IF EXISTS "contacts_phonebook_contact_idx";
CREATE INDEX "contacts_phonebook_key_idx" ON "contacts" USING btree ("phonebook_id", "phone_key");

ALTER TABLE "subscribers" ADD COLUMN "phone_key" varchar(20) COLLATE "C" NOT NULL
  GENERATED ALWAYS AS (regexp_replace("duplicate_contact", '[^0-9]', '', 'g')) STORED;
ALTER TABLE "subscribers" ALTER COLUMN "phone_key" DROP EXPRESSION;
CREATE INDEX "subscribers_campaign_key_idx" ON "subscribers" USING btree ("campaign_id", "phone_key");

ALTER TABLE "sms_subscribers" ADD COLUMN "phone_key" varchar(20) COLLATE "C" NOT NULL
  GENERATED ALWAYS AS (regexp_replace("duplicate_contact", '[^0-9]', '', 'g')) STORED;
ALTER TABLE "sms_subscribers" ALTER COLUMN "phone_key" DROP EXPRESSION;
CREATE INDEX "sms_subscribers_campaign_key_idx" ON "sms_subscribers" USING btree ("sms_campaign_id", "phone_key");
