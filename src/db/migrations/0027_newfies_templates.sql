-- Newfies' SMS and mail templates (issue 17, /rest-api/sms-template/ and /rest-api/mail-template/),
-- owner-scoped like every other record (contract §3). Their text takes the placeholders of an SMS
-- campaign's text_message: {full_name} and the keys of the contact's additional_vars. Alarms
-- (appointment reminders) and SMS campaigns name them by id.
CREATE TABLE IF NOT EXISTS "sms_templates" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"label" varchar(75) NOT NULL,
	"template_key" varchar(30) NOT NULL,
	"sender_phonenumber" varchar(20) DEFAULT '' NOT NULL,
	"sms_text" text NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE "sms_templates" ADD CONSTRAINT "sms_templates_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
-- Newfies' template_key is unique; ours is unique per owner (each user names their own).
CREATE UNIQUE INDEX IF NOT EXISTS "sms_templates_user_key_idx" ON "sms_templates" USING btree ("user_id","template_key");

CREATE TABLE IF NOT EXISTS "mail_templates" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"label" varchar(75) NOT NULL,
	"template_key" varchar(30) NOT NULL,
	"from_email" varchar(254) DEFAULT '' NOT NULL,
	"from_name" varchar(75) DEFAULT '' NOT NULL,
	"subject" varchar(200) DEFAULT '' NOT NULL,
	"message_plaintext" text DEFAULT '' NOT NULL,
	"message_html" text DEFAULT '' NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);
ALTER TABLE "mail_templates" ADD CONSTRAINT "mail_templates_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
CREATE UNIQUE INDEX IF NOT EXISTS "mail_templates_user_key_idx" ON "mail_templates" USING btree ("user_id","template_key");

-- An SMS campaign may send a template's text: used when its own text_message is empty. Deleting
-- the template leaves the campaign without one (its start then needs a text again).
ALTER TABLE "sms_campaigns" ADD COLUMN IF NOT EXISTS "sms_template_id" integer;
ALTER TABLE "sms_campaigns" ADD CONSTRAINT "sms_campaigns_sms_template_id_sms_templates_id_fk" FOREIGN KEY ("sms_template_id") REFERENCES "public"."sms_templates"("id") ON DELETE set null ON UPDATE no action;
CREATE INDEX IF NOT EXISTS "sms_campaigns_sms_template_idx" ON "sms_campaigns" USING btree ("sms_template_id");

-- /rest-api/surveyaggregate/<survey_id>/ reads the campaigns that ran a survey (and deleting a
-- survey template sets their survey_id null): by survey, not by a scan of every campaign.
CREATE INDEX IF NOT EXISTS "campaigns_survey_idx" ON "campaigns" USING btree ("survey_id");
