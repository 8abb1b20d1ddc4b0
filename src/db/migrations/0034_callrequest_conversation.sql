-- Whether a call was a conversation (answered, and not by a machine), kept on the call request:
-- the quiet period of contact caps (issue 16 item 3) looks for a number's last conversation at
-- every claim, and found it by probing each answered call's CDR for a machine's A leg — 14 % of
-- the engine's pace in bench:engine with the Regulation F preset. The engine writes it when it
-- settles a call; rows from before are null and still read their CDR (no backfill: adding a
-- nullable column rewrites nothing).
ALTER TABLE "callrequests" ADD COLUMN IF NOT EXISTS "conversation" boolean;
