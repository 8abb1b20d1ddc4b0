-- Campaign API (issue 5): the trickle rule spools only contacts newer than the last one spooled.
ALTER TABLE "campaigns" ADD COLUMN "last_spooled_contact_id" integer DEFAULT 0 NOT NULL;
