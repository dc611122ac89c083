CREATE TABLE `embeds` (
	`id` text PRIMARY KEY NOT NULL,
	`key_id` text NOT NULL,
	`spots` text NOT NULL,
	`origins` text NOT NULL,
	`units` text NOT NULL,
	`theme` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `embeds_key_idx` ON `embeds` (`key_id`);