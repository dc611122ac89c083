CREATE TABLE `tide_stations` (
	`id` text PRIMARY KEY NOT NULL,
	`record` text NOT NULL
);
