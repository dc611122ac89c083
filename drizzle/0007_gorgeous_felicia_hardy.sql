CREATE TABLE `alert_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`alert_id` text NOT NULL,
	`event_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`scheduled_at` integer NOT NULL,
	`attempted_at` integer,
	`status_code` integer,
	`error` text,
	`outcome` text NOT NULL,
	`payload` text NOT NULL,
	`unsubscribe_token_hash` text,
	FOREIGN KEY (`alert_id`) REFERENCES `alerts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `alert_deliveries_event_idx` ON `alert_deliveries` (`event_id`);--> statement-breakpoint
CREATE INDEX `alert_deliveries_unsubscribe_idx` ON `alert_deliveries` (`unsubscribe_token_hash`);--> statement-breakpoint
CREATE INDEX `alert_deliveries_due_idx` ON `alert_deliveries` (`outcome`,`scheduled_at`);--> statement-breakpoint
CREATE INDEX `alert_deliveries_alert_idx` ON `alert_deliveries` (`alert_id`,`scheduled_at`);--> statement-breakpoint
CREATE TABLE `alert_windows` (
	`alert_id` text NOT NULL,
	`start` integer NOT NULL,
	`end` integer NOT NULL,
	PRIMARY KEY(`alert_id`, `start`),
	FOREIGN KEY (`alert_id`) REFERENCES `alerts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `alerts` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`spot_id` text NOT NULL,
	`name` text NOT NULL,
	`condition` text NOT NULL,
	`delivery` text NOT NULL,
	`target` text NOT NULL,
	`webhook_secret` text,
	`calendar_token_hash` text NOT NULL,
	`disabled_reason` text,
	`disabled_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`spot_id`) REFERENCES `spots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `alerts_calendar_token_hash_unique` ON `alerts` (`calendar_token_hash`);--> statement-breakpoint
CREATE INDEX `alerts_key_idx` ON `alerts` (`key_id`);--> statement-breakpoint
CREATE INDEX `alerts_spot_idx` ON `alerts` (`spot_id`);--> statement-breakpoint
ALTER TABLE `plans` ADD `max_alerts` integer DEFAULT 0 NOT NULL;