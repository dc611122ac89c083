CREATE TABLE "buoy_lead_forecasts" (
	"buoy_id" text NOT NULL,
	"model" text NOT NULL,
	"issued_at" bigint NOT NULL,
	"hour" bigint NOT NULL,
	"wave_height" double precision NOT NULL,
	CONSTRAINT "buoy_lead_forecasts_buoy_id_model_issued_at_hour_pk" PRIMARY KEY("buoy_id","model","issued_at","hour")
);
--> statement-breakpoint
CREATE TABLE "observation_sources" (
	"key" text PRIMARY KEY NOT NULL,
	"body" text NOT NULL,
	"checked_at" bigint NOT NULL
);
