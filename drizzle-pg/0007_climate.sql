CREATE TABLE "climate_cells" (
	"cell_key" text PRIMARY KEY NOT NULL,
	"years_from" bigint NOT NULL,
	"years_to" bigint NOT NULL,
	"computed_at" bigint NOT NULL,
	"summary" text NOT NULL,
	"hours" "bytea" NOT NULL
);
