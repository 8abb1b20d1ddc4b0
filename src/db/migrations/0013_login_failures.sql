-- Failed logins, counted per (client address, username) and per username across addresses
-- (address ''), so that throttling stops guessing at one account without refusing anyone
-- else (src/http/login-throttle.ts). Kept here, not in memory, so the counts survive a restart
-- and are shared by every API process. Only failures (and a success after failures) write it;
-- rows expire at expires_at and are pruned as later failures are written.
CREATE TABLE IF NOT EXISTS "login_failures" (
	"username" varchar(150) NOT NULL,
	"address" varchar(64) NOT NULL,
	"failures" integer DEFAULT 0 NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"lockouts" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp with time zone,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "login_failures_pkey" PRIMARY KEY("username","address")
);
CREATE INDEX IF NOT EXISTS "login_failures_expires_idx" ON "login_failures" USING btree ("expires_at");
