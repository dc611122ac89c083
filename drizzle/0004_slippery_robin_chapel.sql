PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_forecast_documents` (
	`spot_id` text PRIMARY KEY NOT NULL,
	`updated_at` integer NOT NULL,
	`body` blob NOT NULL,
	FOREIGN KEY (`spot_id`) REFERENCES `spots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_forecast_documents`("spot_id", "updated_at", "body") SELECT "spot_id", "updated_at", "body" FROM `forecast_documents`;--> statement-breakpoint
DROP TABLE `forecast_documents`;--> statement-breakpoint
ALTER TABLE `__new_forecast_documents` RENAME TO `forecast_documents`;--> statement-breakpoint
PRAGMA foreign_keys=ON;