-- SMS campaigns (issue 6): SMS gateways, SMS campaigns and their phonebooks, SMS subscribers, the
-- messages sent and the messages received; the voice campaign's SMS gateway becomes a real link.
CREATE TABLE IF NOT EXISTS "sms_campaign_phonebooks" (
	"sms_campaign_id" integer NOT NULL,
	"phonebook_id" integer NOT NULL,
	CONSTRAINT "sms_campaign_phonebooks_sms_campaign_id_phonebook_id_pk" PRIMARY KEY("sms_campaign_id","phonebook_id")
);
CREATE TABLE IF NOT EXISTS "sms_campaigns" (
	"id" serial PRIMARY KEY NOT NULL,
	"sms_campaign_code" varchar(20) NOT NULL,
	"name" varchar(100) NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"user_id" integer NOT NULL,
	"status" smallint DEFAULT 2 NOT NULL,
	"callerid" varchar(80) DEFAULT '' NOT NULL,
	"sms_gateway_id" integer,
	"text_message" text DEFAULT '' NOT NULL,
	"startingdate" timestamp with time zone,
	"expirationdate" timestamp with time zone,
	"daily_start_time" time DEFAULT '00:00:00' NOT NULL,
	"daily_stop_time" time DEFAULT '23:59:59' NOT NULL,
	"monday" boolean DEFAULT true NOT NULL,
	"tuesday" boolean DEFAULT true NOT NULL,
	"wednesday" boolean DEFAULT true NOT NULL,
	"thursday" boolean DEFAULT true NOT NULL,
	"friday" boolean DEFAULT true NOT NULL,
	"saturday" boolean DEFAULT true NOT NULL,
	"sunday" boolean DEFAULT true NOT NULL,
	"frequency" integer DEFAULT 10 NOT NULL,
	"callmaxduration" integer DEFAULT 1800 NOT NULL,
	"maxretry" integer DEFAULT 0 NOT NULL,
	"intervalretry" integer DEFAULT 300 NOT NULL,
	"end_when_done" boolean DEFAULT false NOT NULL,
	"has_been_started" boolean DEFAULT false NOT NULL,
	"totalcontact" integer DEFAULT 0 NOT NULL,
	"last_spooled_contact_id" integer DEFAULT 0 NOT NULL,
	"next_call_at" timestamp with time zone,
	"engine_state" varchar(200),
	"started_date" timestamp with time zone,
	"ended_date" timestamp with time zone,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sms_campaigns_sms_campaign_code_unique" UNIQUE("sms_campaign_code")
);
CREATE TABLE IF NOT EXISTS "sms_gateways" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" varchar(100) NOT NULL,
	"status" smallint DEFAULT 1 NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"driver" varchar(30) DEFAULT 'simulator' NOT NULL,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"callback_secret" varchar(64) NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "sms_gateways_name_unique" UNIQUE("name")
);
CREATE TABLE IF NOT EXISTS "sms_inbound" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"sms_gateway_id" integer,
	"sender_number" varchar(21) NOT NULL,
	"recipient_number" varchar(80) DEFAULT '' NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"opt_out" varchar(20) DEFAULT '' NOT NULL,
	"received_date" timestamp with time zone NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL
);
CREATE TABLE IF NOT EXISTS "sms_messages" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"sms_campaign_id" integer,
	"callrequest_id" bigint,
	"sms_subscriber_id" bigint,
	"user_id" integer NOT NULL,
	"sms_gateway_id" integer,
	"recipient_number" varchar(21) NOT NULL,
	"sender_number" varchar(80) DEFAULT '' NOT NULL,
	"content" text NOT NULL,
	"parts" integer DEFAULT 1 NOT NULL,
	"cost" numeric(16, 5) DEFAULT '0' NOT NULL,
	"status" varchar(10) DEFAULT 'unsent' NOT NULL,
	"gateway_message_id" varchar(100) DEFAULT '' NOT NULL,
	"attempt" integer DEFAULT 1 NOT NULL,
	"engine_id" varchar(64) DEFAULT '' NOT NULL,
	"send_date" timestamp with time zone,
	"delivery_date" timestamp with time zone,
	"error" varchar(200) DEFAULT '' NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);
CREATE TABLE IF NOT EXISTS "sms_subscribers" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"sms_campaign_id" integer NOT NULL,
	"contact_id" integer,
	"duplicate_contact" varchar(21) NOT NULL,
	"full_name" varchar(200) DEFAULT '' NOT NULL,
	"status" smallint DEFAULT 1 NOT NULL,
	"count_attempt" integer DEFAULT 0 NOT NULL,
	"last_attempt" timestamp with time zone,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"gmt_offset" numeric(4, 2),
	"tz_code" varchar(64) DEFAULT '' NOT NULL,
	"additional_vars" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"reason" varchar(200) DEFAULT '' NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_sms_gateway_id_sms_gateways_id_fk" FOREIGN KEY ("sms_gateway_id") REFERENCES "public"."sms_gateways"("id") ON DELETE set null ON UPDATE no action;
ALTER TABLE "sms_campaign_phonebooks" ADD CONSTRAINT "sms_campaign_phonebooks_sms_campaign_id_sms_campaigns_id_fk" FOREIGN KEY ("sms_campaign_id") REFERENCES "public"."sms_campaigns"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "sms_campaign_phonebooks" ADD CONSTRAINT "sms_campaign_phonebooks_phonebook_id_phonebooks_id_fk" FOREIGN KEY ("phonebook_id") REFERENCES "public"."phonebooks"("id") ON DELETE restrict ON UPDATE no action;
ALTER TABLE "sms_campaigns" ADD CONSTRAINT "sms_campaigns_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "sms_campaigns" ADD CONSTRAINT "sms_campaigns_sms_gateway_id_sms_gateways_id_fk" FOREIGN KEY ("sms_gateway_id") REFERENCES "public"."sms_gateways"("id") ON DELETE restrict ON UPDATE no action;
ALTER TABLE "sms_inbound" ADD CONSTRAINT "sms_inbound_sms_gateway_id_sms_gateways_id_fk" FOREIGN KEY ("sms_gateway_id") REFERENCES "public"."sms_gateways"("id") ON DELETE set null ON UPDATE no action;
ALTER TABLE "sms_messages" ADD CONSTRAINT "sms_messages_sms_campaign_id_sms_campaigns_id_fk" FOREIGN KEY ("sms_campaign_id") REFERENCES "public"."sms_campaigns"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "sms_messages" ADD CONSTRAINT "sms_messages_callrequest_id_callrequests_id_fk" FOREIGN KEY ("callrequest_id") REFERENCES "public"."callrequests"("id") ON DELETE set null ON UPDATE no action;
ALTER TABLE "sms_messages" ADD CONSTRAINT "sms_messages_sms_subscriber_id_sms_subscribers_id_fk" FOREIGN KEY ("sms_subscriber_id") REFERENCES "public"."sms_subscribers"("id") ON DELETE set null ON UPDATE no action;
ALTER TABLE "sms_messages" ADD CONSTRAINT "sms_messages_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "sms_messages" ADD CONSTRAINT "sms_messages_sms_gateway_id_sms_gateways_id_fk" FOREIGN KEY ("sms_gateway_id") REFERENCES "public"."sms_gateways"("id") ON DELETE set null ON UPDATE no action;
ALTER TABLE "sms_subscribers" ADD CONSTRAINT "sms_subscribers_sms_campaign_id_sms_campaigns_id_fk" FOREIGN KEY ("sms_campaign_id") REFERENCES "public"."sms_campaigns"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "sms_subscribers" ADD CONSTRAINT "sms_subscribers_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;
CREATE INDEX IF NOT EXISTS "sms_campaign_phonebooks_phonebook_idx" ON "sms_campaign_phonebooks" USING btree ("phonebook_id");
CREATE UNIQUE INDEX IF NOT EXISTS "sms_campaigns_user_name_idx" ON "sms_campaigns" USING btree ("user_id","name");
CREATE INDEX IF NOT EXISTS "sms_campaigns_status_idx" ON "sms_campaigns" USING btree ("status");
CREATE INDEX IF NOT EXISTS "sms_messages_campaign_idx" ON "sms_messages" USING btree ("sms_campaign_id","status");
CREATE INDEX IF NOT EXISTS "sms_messages_gateway_message_idx" ON "sms_messages" USING btree ("sms_gateway_id","gateway_message_id");
CREATE INDEX IF NOT EXISTS "sms_messages_recipient_idx" ON "sms_messages" USING btree ("recipient_number");
CREATE INDEX IF NOT EXISTS "sms_messages_subscriber_idx" ON "sms_messages" USING btree ("sms_subscriber_id");
CREATE UNIQUE INDEX IF NOT EXISTS "sms_subscribers_campaign_number_idx" ON "sms_subscribers" USING btree ("sms_campaign_id","duplicate_contact");
CREATE INDEX IF NOT EXISTS "sms_subscribers_due_idx" ON "sms_subscribers" USING btree ("sms_campaign_id","status","next_attempt_at");
CREATE INDEX IF NOT EXISTS "sms_subscribers_claim_new_idx" ON "sms_subscribers" USING btree ("sms_campaign_id","id") WHERE "status" = 1 AND "count_attempt" = 0;
CREATE INDEX IF NOT EXISTS "sms_subscribers_claim_retry_idx" ON "sms_subscribers" USING btree ("sms_campaign_id","next_attempt_at") WHERE "status" = 1 AND "count_attempt" > 0;
CREATE INDEX IF NOT EXISTS "sms_messages_in_flight_idx" ON "sms_messages" USING btree ("engine_id") WHERE "engine_id" <> '';
