CREATE TABLE `spot_demand` (
	`spot_id` text PRIMARY KEY NOT NULL,
	`requested_at` integer NOT NULL,
	FOREIGN KEY (`spot_id`) REFERENCES `spots`(`id`) ON UPDATE no action ON DELETE cascade
);
