-- Newfies' alarm has a survey (its documented POST and read both carry it); ours dropped it, so a
-- client that wrote one read it back missing. It is stored and shown; a reminder call plays its
-- calendar setting's survey, as in Newfies.
ALTER TABLE "alarms" ADD COLUMN IF NOT EXISTS "survey_id" integer;
ALTER TABLE "alarms" DROP CONSTRAINT IF EXISTS "alarms_survey_id_fkey";
ALTER TABLE "alarms" ADD CONSTRAINT "alarms_survey_id_fkey" FOREIGN KEY ("survey_id") REFERENCES "survey_templates"("id") ON DELETE SET NULL;
