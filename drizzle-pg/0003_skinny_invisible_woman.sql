ALTER TABLE "alert_deliveries" ADD COLUMN "kind" text DEFAULT 'window' NOT NULL;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "confirmed_at" bigint;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "confirm_token_hash" text;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "confirm_sent_at" bigint;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_confirm_token_hash_unique" UNIQUE("confirm_token_hash");--> statement-breakpoint
UPDATE "alerts" SET "confirmed_at" = "created_at" WHERE "delivery" = 'webhook';--> statement-breakpoint
UPDATE "alert_deliveries" SET "kind" = 'test' WHERE ("payload"::jsonb) ->> 'type' = 'alert.test';
