CREATE TABLE `climate_cells` (
	`cell_key` text PRIMARY KEY NOT NULL,
	`years_from` integer NOT NULL,
	`years_to` integer NOT NULL,
	`computed_at` integer NOT NULL,
	`summary` text NOT NULL,
	`hours` blob NOT NULL
);
