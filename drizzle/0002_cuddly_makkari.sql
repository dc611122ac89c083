CREATE TABLE `spot_tide_model` (
	`spot_id` text PRIMARY KEY NOT NULL,
	`has_data` integer NOT NULL,
	`range_m` real NOT NULL,
	`station_range_m` real,
	`window_range_m` real NOT NULL,
	`since` integer NOT NULL,
	`fetched_at` integer NOT NULL,
	FOREIGN KEY (`spot_id`) REFERENCES `spots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `tide_model_extremes` (
	`spot_id` text NOT NULL,
	`time` integer NOT NULL,
	`type` text NOT NULL,
	`height` real NOT NULL,
	PRIMARY KEY(`spot_id`, `time`),
	FOREIGN KEY (`spot_id`) REFERENCES `spots`(`id`) ON UPDATE no action ON DELETE cascade
);
