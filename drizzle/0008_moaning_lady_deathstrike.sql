ALTER TABLE `alert_deliveries` ADD `kind` text DEFAULT 'window' NOT NULL;--> statement-breakpoint
ALTER TABLE `alerts` ADD `confirmed_at` integer;--> statement-breakpoint
ALTER TABLE `alerts` ADD `confirm_token_hash` text;--> statement-breakpoint
ALTER TABLE `alerts` ADD `confirm_sent_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `alerts_confirm_token_hash_unique` ON `alerts` (`confirm_token_hash`);--> statement-breakpoint
UPDATE `alerts` SET `confirmed_at` = `created_at` WHERE `delivery` = 'webhook';--> statement-breakpoint
UPDATE `alert_deliveries` SET `kind` = 'test' WHERE json_extract(`payload`, '$.type') = 'alert.test';
