-- The spool writes a campaign's subscribers in one INSERT … SELECT (a million rows at a start).
-- Measured on PostgreSQL 15 (1M contacts, 2 cores), two things took more than half its time:
--
-- 1. Foreign keys. PostgreSQL checks each inserted row against campaigns and contacts one row at
--    a time (an index probe and a row lock per subscriber and per key: ~10 s of a 20 s spool).
--    The same rules now hold set-based: every spool locks its campaign row once
--    (src/engine/spool.ts), and the statement triggers below cascade a campaign's delete to its
--    subscribers and clear the contact of subscribers whose contact is deleted, as the foreign
--    keys did (ON DELETE CASCADE, ON DELETE SET NULL), once per statement instead of once per
--    row (the old SET NULL, with no index on contact_id, scanned every subscriber once per
--    deleted contact: a phonebook's delete took contacts × subscribers row visits).
-- 2. Phone numbers compared under the database's locale (strcoll) in the unique index of a
--    campaign's numbers and the sort that keeps one subscriber per number. Numbers are ASCII
--    ('+' and digits): byte order (collation "C") is right for them, and several times faster.
ALTER TABLE "subscribers" DROP CONSTRAINT IF EXISTS "subscribers_campaign_id_campaigns_id_fk";
ALTER TABLE "subscribers" DROP CONSTRAINT IF EXISTS "subscribers_contact_id_contacts_id_fk";
ALTER TABLE "sms_subscribers" DROP CONSTRAINT IF EXISTS "sms_subscribers_sms_campaign_id_sms_campaigns_id_fk";
ALTER TABLE "sms_subscribers" DROP CONSTRAINT IF EXISTS "sms_subscribers_contact_id_contacts_id_fk";

ALTER TABLE "contacts" ALTER COLUMN "contact" TYPE varchar(21) COLLATE "C";
ALTER TABLE "subscribers" ALTER COLUMN "duplicate_contact" TYPE varchar(21) COLLATE "C";
ALTER TABLE "sms_subscribers" ALTER COLUMN "duplicate_contact" TYPE varchar(21) COLLATE "C";

CREATE FUNCTION campaigns_delete_subscribers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME = 'campaigns' THEN
    DELETE FROM subscribers s USING gone g WHERE s.campaign_id = g.id;
  ELSE
    DELETE FROM sms_subscribers s USING gone g WHERE s.sms_campaign_id = g.id;
  END IF;
  RETURN NULL;
END;
$$;

CREATE TRIGGER campaigns_delete_subscribers AFTER DELETE ON "campaigns"
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION campaigns_delete_subscribers();
CREATE TRIGGER sms_campaigns_delete_subscribers AFTER DELETE ON "sms_campaigns"
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION campaigns_delete_subscribers();

CREATE FUNCTION contacts_clear_subscribers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE subscribers s SET contact_id = NULL FROM gone g WHERE s.contact_id = g.id;
  UPDATE sms_subscribers s SET contact_id = NULL FROM gone g WHERE s.contact_id = g.id;
  RETURN NULL;
END;
$$;

CREATE TRIGGER contacts_clear_subscribers AFTER DELETE ON "contacts"
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION contacts_clear_subscribers();
