/**
 * The SQLite schema: the tables declared in db/tables.ts, built with SQLite's columns. `drizzle-kit generate` turns
 * changes to them into SQL under `drizzle/`, which `scripts/embed-migrations.ts` embeds into `src/db/migrations.gen.ts`
 * for the compiled binary.
 */
import { sqliteTables } from "./tables";

export const {
  spots, spotAliases, spotFacing, spotTideStation, tideStations, plans, accounts, invitations, consoleSessions, apiKeys, embeds, alerts, alertWindows,
  alertDeliveries, usageCounters, rateLimitState, forecastDocuments, spotDemand, tideExtremes, spotTideModel, tideModelExtremes, observationSources,
  buoyLeadForecasts, climateCells, meta,
} = sqliteTables();
