CREATE TABLE "alert_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"alert_id" text NOT NULL,
	"event_id" text NOT NULL,
	"attempt" bigint NOT NULL,
	"scheduled_at" bigint NOT NULL,
	"attempted_at" bigint,
	"status_code" bigint,
	"error" text,
	"outcome" text NOT NULL,
	"payload" text NOT NULL,
	"unsubscribe_token_hash" text
);
--> statement-breakpoint
CREATE TABLE "alert_windows" (
	"alert_id" text NOT NULL,
	"start" bigint NOT NULL,
	"end" bigint NOT NULL,
	CONSTRAINT "alert_windows_alert_id_start_pk" PRIMARY KEY("alert_id","start")
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" text PRIMARY KEY NOT NULL,
	"key_id" text NOT NULL,
	"spot_id" text NOT NULL,
	"name" text NOT NULL,
	"condition" text NOT NULL,
	"delivery" text NOT NULL,
	"target" text NOT NULL,
	"webhook_secret" text,
	"calendar_token_hash" text NOT NULL,
	"disabled_reason" text,
	"disabled_at" bigint,
	"created_at" bigint NOT NULL,
	CONSTRAINT "alerts_calendar_token_hash_unique" UNIQUE("calendar_token_hash")
);
--> statement-breakpoint
ALTER TABLE "plans" ADD COLUMN "max_alerts" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_deliveries" ADD CONSTRAINT "alert_deliveries_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_windows" ADD CONSTRAINT "alert_windows_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_key_id_api_keys_id_fk" FOREIGN KEY ("key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_spot_id_spots_id_fk" FOREIGN KEY ("spot_id") REFERENCES "public"."spots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_deliveries_event_idx" ON "alert_deliveries" USING btree ("event_id");--> statement-breakpoint
CREATE INDEX "alert_deliveries_unsubscribe_idx" ON "alert_deliveries" USING btree ("unsubscribe_token_hash");--> statement-breakpoint
CREATE INDEX "alert_deliveries_due_idx" ON "alert_deliveries" USING btree ("outcome","scheduled_at");--> statement-breakpoint
CREATE INDEX "alert_deliveries_alert_idx" ON "alert_deliveries" USING btree ("alert_id","scheduled_at");--> statement-breakpoint
CREATE INDEX "alerts_key_idx" ON "alerts" USING btree ("key_id");--> statement-breakpoint
CREATE INDEX "alerts_spot_idx" ON "alerts" USING btree ("spot_id");