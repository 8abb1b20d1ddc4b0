-- POSTs sent with an Idempotency-Key header (src/http/idempotency.ts): the first request's
-- answer is kept for 24 hours so that a retry with the same key and body replays it instead of
-- doing the work again. Per user. `status` is null while the first request is still running.
CREATE TABLE IF NOT EXISTS "idempotency_keys" (
	"user_id" integer NOT NULL,
	"key" varchar(255) NOT NULL,
	"fingerprint" text NOT NULL,
	"status" integer,
	"headers" text,
	"body" text,
	"created" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY("user_id","key")
);
ALTER TABLE "idempotency_keys" ADD CONSTRAINT "idempotency_keys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
CREATE INDEX IF NOT EXISTS "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created");
