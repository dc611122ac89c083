CREATE TABLE `accounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`email` text NOT NULL,
	`plan` text NOT NULL,
	`daily_limit` integer,
	`minute_limit` integer,
	`max_keys` integer,
	`disabled` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`plan`) REFERENCES `plans`(`name`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_email_unique` ON `accounts` (`email`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`hash` text NOT NULL,
	`prefix` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_unique` ON `api_keys` (`hash`);--> statement-breakpoint
CREATE INDEX `api_keys_account_idx` ON `api_keys` (`account_id`);--> statement-breakpoint
CREATE TABLE `forecast_documents` (
	`spot_id` text PRIMARY KEY NOT NULL,
	`updated_at` integer NOT NULL,
	`body` text NOT NULL,
	FOREIGN KEY (`spot_id`) REFERENCES `spots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `plans` (
	`name` text PRIMARY KEY NOT NULL,
	`daily_limit` integer NOT NULL,
	`minute_limit` integer NOT NULL,
	`max_keys` integer NOT NULL,
	`attribution_required` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `rate_limit_state` (
	`key_id` text PRIMARY KEY NOT NULL,
	`recent` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `spot_aliases` (
	`spot_id` text NOT NULL,
	`alias` text NOT NULL,
	PRIMARY KEY(`spot_id`, `alias`),
	FOREIGN KEY (`spot_id`) REFERENCES `spots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `spot_facing` (
	`spot_id` text PRIMARY KEY NOT NULL,
	`facing` real,
	`method` text NOT NULL,
	`computed_at` integer NOT NULL,
	FOREIGN KEY (`spot_id`) REFERENCES `spots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `spot_tide_station` (
	`spot_id` text PRIMARY KEY NOT NULL,
	`tideless` integer NOT NULL,
	`station_id` text,
	`station_name` text,
	`station_source` text,
	`distance_km` real,
	`datum` text,
	`reason` text NOT NULL,
	`computed_at` integer NOT NULL,
	FOREIGN KEY (`spot_id`) REFERENCES `spots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `spots` (
	`id` text PRIMARY KEY NOT NULL,
	`hex_id` text NOT NULL,
	`name` text NOT NULL,
	`country` text NOT NULL,
	`region` text,
	`lat` real NOT NULL,
	`lng` real NOT NULL,
	`facing_override` real,
	`tideless_override` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `spots_hex_id_unique` ON `spots` (`hex_id`);--> statement-breakpoint
CREATE INDEX `spots_country_idx` ON `spots` (`country`);--> statement-breakpoint
CREATE TABLE `tide_extremes` (
	`spot_id` text NOT NULL,
	`time` integer NOT NULL,
	`type` text NOT NULL,
	`height` real NOT NULL,
	PRIMARY KEY(`spot_id`, `time`),
	FOREIGN KEY (`spot_id`) REFERENCES `spots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `usage_counters` (
	`key_id` text NOT NULL,
	`day` text NOT NULL,
	`endpoint` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`key_id`, `day`, `endpoint`)
);
