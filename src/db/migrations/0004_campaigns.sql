-- Generated from src/db/schema/campaigns.ts with drizzle-kit export, then reviewed.
CREATE TABLE "call_results" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"callrequest_id" bigint NOT NULL,
	"section_id" integer,
	"section_order" integer,
	"question" text DEFAULT '' NOT NULL,
	"response" text DEFAULT '' NOT NULL,
	"record_file" varchar(255) DEFAULT '' NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "callrequests" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"campaign_id" integer NOT NULL,
	"subscriber_id" bigint,
	"status" smallint DEFAULT 1 NOT NULL,
	"call_uuid" varchar(64) NOT NULL,
	"phone_number" varchar(21) NOT NULL,
	"callerid" varchar(80) DEFAULT '' NOT NULL,
	"gateway_id" integer,
	"attempt" integer DEFAULT 1 NOT NULL,
	"engine_id" varchar(64) DEFAULT '' NOT NULL,
	"hangup_cause" varchar(60) DEFAULT '' NOT NULL,
	"hangup_cause_q850" integer,
	"completed" boolean DEFAULT false NOT NULL,
	"call_time" timestamp with time zone,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "campaign_phonebooks" (
	"campaign_id" integer NOT NULL,
	"phonebook_id" integer NOT NULL,
	CONSTRAINT "campaign_phonebooks_campaign_id_phonebook_id_pk" PRIMARY KEY("campaign_id","phonebook_id")
);

CREATE TABLE "campaigns" (
	"id" serial PRIMARY KEY NOT NULL,
	"campaign_code" varchar(20) NOT NULL,
	"name" varchar(100) NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"user_id" integer NOT NULL,
	"status" smallint DEFAULT 0 NOT NULL,
	"callerid" varchar(80) DEFAULT '' NOT NULL,
	"caller_name" varchar(100) DEFAULT '' NOT NULL,
	"callerid_group_id" integer,
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
	"calltimeout" integer DEFAULT 45 NOT NULL,
	"max_aleg" integer DEFAULT 100 NOT NULL,
	"max_xfer" integer DEFAULT 0 NOT NULL,
	"dial_method" smallint DEFAULT 1 NOT NULL,
	"agent_dial_rate" numeric(6, 2) DEFAULT '1.00' NOT NULL,
	"aleg_gateway_id" integer,
	"sms_gateway_id" integer,
	"survey_id" integer,
	"survey_snapshot" jsonb,
	"extra_data" text DEFAULT '' NOT NULL,
	"voicemail" boolean DEFAULT false NOT NULL,
	"amd_behavior" smallint DEFAULT 1 NOT NULL,
	"voicemail_audiofile_id" integer,
	"dnc_id" integer,
	"timezone_dialing" boolean DEFAULT false NOT NULL,
	"completion_enabled" boolean DEFAULT false NOT NULL,
	"end_when_done" boolean DEFAULT false NOT NULL,
	"has_been_started" boolean DEFAULT false NOT NULL,
	"totalcontact" integer DEFAULT 0 NOT NULL,
	"next_call_at" timestamp with time zone,
	"engine_state" varchar(200),
	"started_date" timestamp with time zone,
	"ended_date" timestamp with time zone,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "campaigns_campaign_code_unique" UNIQUE("campaign_code")
);

CREATE TABLE "cdrs" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"callid" varchar(64) NOT NULL,
	"callerid" varchar(80) DEFAULT '' NOT NULL,
	"phone_number" varchar(40) NOT NULL,
	"starting_date" timestamp with time zone NOT NULL,
	"duration" integer DEFAULT 0 NOT NULL,
	"billsec" integer DEFAULT 0 NOT NULL,
	"billed_duration" integer DEFAULT 0 NOT NULL,
	"call_cost" numeric(16, 5) DEFAULT '0' NOT NULL,
	"hangup_cause_q850" integer DEFAULT 0 NOT NULL,
	"disposition" varchar(20) DEFAULT '' NOT NULL,
	"leg_type" smallint DEFAULT 1 NOT NULL,
	"amd_status" smallint DEFAULT 0 NOT NULL,
	"callrequest_id" bigint,
	"campaign_id" integer,
	"subscriber_id" bigint,
	"contact_id" integer,
	"user_id" integer,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "dids" (
	"id" serial PRIMARY KEY NOT NULL,
	"did_number" varchar(21) NOT NULL,
	"user_id" integer NOT NULL,
	"campaign_id" integer,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dids_did_number_unique" UNIQUE("did_number")
);

CREATE TABLE "gateways" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" varchar(100) NOT NULL,
	"status" smallint DEFAULT 1 NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"driver" varchar(30) DEFAULT 'simulator' NOT NULL,
	"gateways" varchar(500) DEFAULT '' NOT NULL,
	"addprefix" varchar(60) DEFAULT '' NOT NULL,
	"removeprefix" varchar(60) DEFAULT '' NOT NULL,
	"originate_dial_string" varchar(500) DEFAULT '' NOT NULL,
	"maximum_call" integer,
	"settings" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "gateways_name_unique" UNIQUE("name")
);

CREATE TABLE "subscribers" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"campaign_id" integer NOT NULL,
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

ALTER TABLE "call_results" ADD CONSTRAINT "call_results_callrequest_id_callrequests_id_fk" FOREIGN KEY ("callrequest_id") REFERENCES "public"."callrequests"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "call_results" ADD CONSTRAINT "call_results_section_id_section_templates_id_fk" FOREIGN KEY ("section_id") REFERENCES "public"."section_templates"("id") ON DELETE set null ON UPDATE no action;
ALTER TABLE "callrequests" ADD CONSTRAINT "callrequests_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "callrequests" ADD CONSTRAINT "callrequests_subscriber_id_subscribers_id_fk" FOREIGN KEY ("subscriber_id") REFERENCES "public"."subscribers"("id") ON DELETE set null ON UPDATE no action;
ALTER TABLE "callrequests" ADD CONSTRAINT "callrequests_gateway_id_gateways_id_fk" FOREIGN KEY ("gateway_id") REFERENCES "public"."gateways"("id") ON DELETE set null ON UPDATE no action;
ALTER TABLE "campaign_phonebooks" ADD CONSTRAINT "campaign_phonebooks_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "campaign_phonebooks" ADD CONSTRAINT "campaign_phonebooks_phonebook_id_phonebooks_id_fk" FOREIGN KEY ("phonebook_id") REFERENCES "public"."phonebooks"("id") ON DELETE restrict ON UPDATE no action;
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_callerid_group_id_callerid_groups_id_fk" FOREIGN KEY ("callerid_group_id") REFERENCES "public"."callerid_groups"("id") ON DELETE set null ON UPDATE no action;
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_aleg_gateway_id_gateways_id_fk" FOREIGN KEY ("aleg_gateway_id") REFERENCES "public"."gateways"("id") ON DELETE restrict ON UPDATE no action;
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_survey_id_survey_templates_id_fk" FOREIGN KEY ("survey_id") REFERENCES "public"."survey_templates"("id") ON DELETE set null ON UPDATE no action;
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_voicemail_audiofile_id_audio_files_id_fk" FOREIGN KEY ("voicemail_audiofile_id") REFERENCES "public"."audio_files"("id") ON DELETE set null ON UPDATE no action;
ALTER TABLE "campaigns" ADD CONSTRAINT "campaigns_dnc_id_dnc_lists_id_fk" FOREIGN KEY ("dnc_id") REFERENCES "public"."dnc_lists"("id") ON DELETE set null ON UPDATE no action;
ALTER TABLE "cdrs" ADD CONSTRAINT "cdrs_callrequest_id_callrequests_id_fk" FOREIGN KEY ("callrequest_id") REFERENCES "public"."callrequests"("id") ON DELETE set null ON UPDATE no action;
ALTER TABLE "cdrs" ADD CONSTRAINT "cdrs_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "cdrs" ADD CONSTRAINT "cdrs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "dids" ADD CONSTRAINT "dids_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "dids" ADD CONSTRAINT "dids_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE set null ON UPDATE no action;
ALTER TABLE "subscribers" ADD CONSTRAINT "subscribers_campaign_id_campaigns_id_fk" FOREIGN KEY ("campaign_id") REFERENCES "public"."campaigns"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "subscribers" ADD CONSTRAINT "subscribers_contact_id_contacts_id_fk" FOREIGN KEY ("contact_id") REFERENCES "public"."contacts"("id") ON DELETE set null ON UPDATE no action;
CREATE INDEX "call_results_callrequest_idx" ON "call_results" USING btree ("callrequest_id");
CREATE INDEX "callrequests_campaign_idx" ON "callrequests" USING btree ("campaign_id","status");
CREATE INDEX "callrequests_calling_idx" ON "callrequests" USING btree ("status","engine_id");
CREATE INDEX "callrequests_subscriber_idx" ON "callrequests" USING btree ("subscriber_id");
CREATE INDEX "campaign_phonebooks_phonebook_idx" ON "campaign_phonebooks" USING btree ("phonebook_id");
CREATE UNIQUE INDEX "campaigns_user_name_idx" ON "campaigns" USING btree ("user_id","name");
CREATE INDEX "campaigns_status_idx" ON "campaigns" USING btree ("status");
CREATE INDEX "cdrs_campaign_idx" ON "cdrs" USING btree ("campaign_id");
CREATE INDEX "cdrs_starting_date_idx" ON "cdrs" USING btree ("starting_date");
CREATE INDEX "cdrs_callrequest_idx" ON "cdrs" USING btree ("callrequest_id");
CREATE INDEX "cdrs_user_idx" ON "cdrs" USING btree ("user_id");
CREATE INDEX "dids_user_idx" ON "dids" USING btree ("user_id");
CREATE UNIQUE INDEX "subscribers_campaign_number_idx" ON "subscribers" USING btree ("campaign_id","duplicate_contact");
CREATE INDEX "subscribers_due_idx" ON "subscribers" USING btree ("campaign_id","status","next_attempt_at");
