-- Generated from src/db/schema/contacts.ts with drizzle-kit export, then reviewed.
CREATE TABLE "callerid_groups" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" varchar(100) NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"user_id" integer NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "callerids" (
	"id" serial PRIMARY KEY NOT NULL,
	"areacode" varchar(20) DEFAULT '' NOT NULL,
	"callerid_num" varchar(21) NOT NULL,
	"callerid_name" varchar(100) DEFAULT '' NOT NULL,
	"callerid_group_id" integer NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "contacts" (
	"id" serial PRIMARY KEY NOT NULL,
	"phonebook_id" integer NOT NULL,
	"contact" varchar(21) NOT NULL,
	"full_name" varchar(200) DEFAULT '' NOT NULL,
	"additional_vars" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"status" smallint DEFAULT 1 NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "dnc_contacts" (
	"id" serial PRIMARY KEY NOT NULL,
	"dnc_id" integer NOT NULL,
	"phone_number" varchar(21) NOT NULL,
	"digits" varchar(20) GENERATED ALWAYS AS (regexp_replace(phone_number, '[^0-9]', '', 'g')) STORED,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "dnc_lists" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" varchar(100) NOT NULL,
	"user_id" integer NOT NULL,
	"is_global" boolean DEFAULT false NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);

CREATE TABLE "phonebooks" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" varchar(100) NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"user_id" integer NOT NULL,
	"created_date" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_date" timestamp with time zone DEFAULT now() NOT NULL
);

ALTER TABLE "callerid_groups" ADD CONSTRAINT "callerid_groups_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "callerids" ADD CONSTRAINT "callerids_callerid_group_id_callerid_groups_id_fk" FOREIGN KEY ("callerid_group_id") REFERENCES "public"."callerid_groups"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "contacts" ADD CONSTRAINT "contacts_phonebook_id_phonebooks_id_fk" FOREIGN KEY ("phonebook_id") REFERENCES "public"."phonebooks"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "dnc_contacts" ADD CONSTRAINT "dnc_contacts_dnc_id_dnc_lists_id_fk" FOREIGN KEY ("dnc_id") REFERENCES "public"."dnc_lists"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "dnc_lists" ADD CONSTRAINT "dnc_lists_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
ALTER TABLE "phonebooks" ADD CONSTRAINT "phonebooks_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;
CREATE INDEX "callerid_groups_user_idx" ON "callerid_groups" USING btree ("user_id");
CREATE INDEX "callerids_group_idx" ON "callerids" USING btree ("callerid_group_id");
CREATE INDEX "contacts_phonebook_contact_idx" ON "contacts" USING btree ("phonebook_id","contact");
CREATE INDEX "dnc_contacts_digits_dnc_idx" ON "dnc_contacts" USING btree ("digits","dnc_id");
CREATE INDEX "dnc_contacts_dnc_idx" ON "dnc_contacts" USING btree ("dnc_id");
CREATE INDEX "dnc_lists_user_idx" ON "dnc_lists" USING btree ("user_id");
CREATE INDEX "phonebooks_user_idx" ON "phonebooks" USING btree ("user_id");
