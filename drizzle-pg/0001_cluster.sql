CREATE SCHEMA "cluster";
--> statement-breakpoint
CREATE TABLE "cluster"."change_counters" (
	"topic" text PRIMARY KEY NOT NULL,
	"version" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "cluster"."job_runs" (
	"name" text NOT NULL,
	"slot" text NOT NULL,
	"node" text NOT NULL,
	"started_at" bigint NOT NULL,
	"finished_at" bigint,
	"outcome" text,
	CONSTRAINT "job_runs_name_slot_pk" PRIMARY KEY("name","slot")
);
--> statement-breakpoint
CREATE TABLE "cluster"."nodes" (
	"id" text PRIMARY KEY NOT NULL,
	"host" text NOT NULL,
	"pid" integer NOT NULL,
	"version" text NOT NULL,
	"started_at" bigint NOT NULL,
	"seen_at" bigint NOT NULL,
	"address" text
);
