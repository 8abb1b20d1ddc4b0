-- Lists read in id order within a parent (the export of one phonebook or DNC list out of a large
-- table, the spool's contacts of some phonebooks in an id range) walk an index instead of sorting.
CREATE INDEX IF NOT EXISTS "contacts_phonebook_id_idx" ON "contacts" USING btree ("phonebook_id","id");
CREATE INDEX IF NOT EXISTS "dnc_contacts_dnc_id_idx" ON "dnc_contacts" USING btree ("dnc_id","id");
DROP INDEX IF EXISTS "dnc_contacts_dnc_idx";
