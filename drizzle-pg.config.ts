import { defineConfig } from "drizzle-kit";

/** The PostgreSQL migrations (SURFCAST_DATABASE_URL); drizzle.config.ts keeps the SQLite ones. */
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/postgres/schema.ts",
  out: "./drizzle-pg",
});
