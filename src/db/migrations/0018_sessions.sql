-- Browser sign-ins (issue 15 §2): the operators' console authenticates with an HttpOnly cookie
-- whose secret is stored here only as its sha256; writes made with it also need the session's
-- CSRF token (src/http/sessions.ts). Sessions expire at `expires` (SESSION_HOURS after sign-in)
-- and end when their user signs out, is deactivated or has their password changed (the row is
-- deleted). Expired rows are pruned at each sign-in.
CREATE TABLE IF NOT EXISTS "sessions" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"secret_hash" varchar(64) NOT NULL,
	"csrf_token" varchar(64) NOT NULL,
	"created" timestamp with time zone NOT NULL,
	"expires" timestamp with time zone NOT NULL,
	"last_seen" timestamp with time zone NOT NULL,
	CONSTRAINT "sessions_secret_hash_unique" UNIQUE("secret_hash")
);
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
CREATE INDEX IF NOT EXISTS "sessions_user_idx" ON "sessions" USING btree ("user_id");
CREATE INDEX IF NOT EXISTS "sessions_expires_idx" ON "sessions" USING btree ("expires");
