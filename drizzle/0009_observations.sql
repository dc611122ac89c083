CREATE TABLE `buoy_lead_forecasts` (
	`buoy_id` text NOT NULL,
	`model` text NOT NULL,
	`issued_at` integer NOT NULL,
	`hour` integer NOT NULL,
	`wave_height` real NOT NULL,
	PRIMARY KEY(`buoy_id`, `model`, `issued_at`, `hour`)
);
--> statement-breakpoint
CREATE TABLE `observation_sources` (
	`key` text PRIMARY KEY NOT NULL,
	`body` text NOT NULL,
	`checked_at` integer NOT NULL
);
