-- Generated from src/db/schema/ivr.ts with drizzle-kit export, then reviewed.
CREATE TABLE "audio_files" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" varchar(100) NOT NULL,
	"audio_file" varchar(255) NOT NULL,
	"content_type" varchar(50) NOT NULL,
	"duration" numeric(10, 3),
	"user_id" integer NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "branching_templates" (
	"id" serial PRIMARY KEY NOT NULL,
	"keys" varchar(150) NOT NULL,
	"section_id" integer NOT NULL,
	"goto_id" integer,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "queues" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" varchar(100) NOT NULL,
	"user_id" integer NOT NULL,
	"strategy" smallint DEFAULT 5 NOT NULL,
	"moh_sound" varchar(250) DEFAULT '' NOT NULL,
	"record_template" varchar(250) DEFAULT '' NOT NULL,
	"time_base_score" varchar(20) DEFAULT 'queue' NOT NULL,
	"tier_rules_apply" boolean DEFAULT false NOT NULL,
	"tier_rule_wait_second" integer DEFAULT 300 NOT NULL,
	"tier_rule_wait_multiply_level" boolean DEFAULT true NOT NULL,
	"tier_rule_no_agent_no_wait" boolean DEFAULT false NOT NULL,
	"discard_abandoned_after" integer DEFAULT 14400 NOT NULL,
	"abandoned_resume_allowed" boolean DEFAULT true NOT NULL,
	"max_wait_time" integer DEFAULT 0 NOT NULL,
	"max_wait_time_with_no_agent" integer DEFAULT 120 NOT NULL,
	"max_wait_time_with_no_agent_time_reached" integer DEFAULT 5 NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "section_templates" (
	"id" serial PRIMARY KEY NOT NULL,
	"survey_id" integer NOT NULL,
	"order" integer NOT NULL,
	"type" smallint DEFAULT 1 NOT NULL,
	"question" text NOT NULL,
	"script" text DEFAULT '' NOT NULL,
	"audiofile_id" integer,
	"invalid_audiofile_id" integer,
	"retries" integer,
	"timeout" integer DEFAULT 5 NOT NULL,
	"key_0" varchar(100),
	"key_1" varchar(100),
	"key_2" varchar(100),
	"key_3" varchar(100),
	"key_4" varchar(100),
	"key_5" varchar(100),
	"key_6" varchar(100),
	"key_7" varchar(100),
	"key_8" varchar(100),
	"key_9" varchar(100),
	"rating_laps" integer DEFAULT 9 NOT NULL,
	"validate_number" boolean DEFAULT true NOT NULL,
	"number_digits" integer DEFAULT 2 NOT NULL,
	"min_number" integer DEFAULT 0 NOT NULL,
	"max_number" integer DEFAULT 99 NOT NULL,
	"phonenumber" varchar(50),
	"conference" varchar(50),
	"completed" boolean DEFAULT false NOT NULL,
	"queue_id" integer,
	"sms_text" text,
	"api_url" varchar(2000),
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "survey_templates" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" varchar(100) NOT NULL,
	"description" text,
	"user_id" integer NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE "audio_files" ADD CONSTRAINT "audio_files_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "branching_templates" ADD CONSTRAINT "branching_templates_section_id_section_templates_id_fk" FOREIGN KEY ("section_id") REFERENCES "public"."section_templates"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "branching_templates" ADD CONSTRAINT "branching_templates_goto_id_section_templates_id_fk" FOREIGN KEY ("goto_id") REFERENCES "public"."section_templates"("id") ON DELETE set null ON UPDATE no action;
ALTER TABLE "queues" ADD CONSTRAINT "queues_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "section_templates" ADD CONSTRAINT "section_templates_survey_id_survey_templates_id_fk" FOREIGN KEY ("survey_id") REFERENCES "public"."survey_templates"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "section_templates" ADD CONSTRAINT "section_templates_audiofile_id_audio_files_id_fk" FOREIGN KEY ("audiofile_id") REFERENCES "public"."audio_files"("id") ON DELETE restrict ON UPDATE no action;
ALTER TABLE "section_templates" ADD CONSTRAINT "section_templates_invalid_audiofile_id_audio_files_id_fk" FOREIGN KEY ("invalid_audiofile_id") REFERENCES "public"."audio_files"("id") ON DELETE restrict ON UPDATE no action;
ALTER TABLE "section_templates" ADD CONSTRAINT "section_templates_queue_id_queues_id_fk" FOREIGN KEY ("queue_id") REFERENCES "public"."queues"("id") ON DELETE restrict ON UPDATE no action;
ALTER TABLE "survey_templates" ADD CONSTRAINT "survey_templates_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
CREATE INDEX "audio_files_user_idx" ON "audio_files" USING btree ("user_id");
CREATE UNIQUE INDEX "branching_templates_section_keys_idx" ON "branching_templates" USING btree ("section_id","keys");
CREATE INDEX "queues_user_idx" ON "queues" USING btree ("user_id");
CREATE INDEX "section_templates_survey_idx" ON "section_templates" USING btree ("survey_id","order");
CREATE INDEX "survey_templates_user_idx" ON "survey_templates" USING btree ("user_id");
