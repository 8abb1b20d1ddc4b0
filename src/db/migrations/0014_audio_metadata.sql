-- Issue 11 item 9: an upload is judged by decoding it, and what the decoder found is kept.
-- duration (seconds) is already there; rows uploaded before this keep null in the new columns
-- (SQL cannot read their files), and their duration as music-metadata measured it.
ALTER TABLE "audio_files" ADD COLUMN "sample_rate" integer;
ALTER TABLE "audio_files" ADD COLUMN "channels" smallint;
