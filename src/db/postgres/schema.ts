/**
 * The PostgreSQL schema: in `public`, the tables declared in db/tables.ts, built with PostgreSQL's columns (the same
 * tables, columns, keys and indexes as the SQLite schema, so a row copies across unchanged: docs/postgres.md, "Types");
 * in `cluster`, what several servers need to cooperate, which has no SQLite counterpart. `drizzle-kit generate
 * --config drizzle-pg.config.ts` turns changes here into SQL under `drizzle-pg/`, embedded into `migrations.gen.ts`.
 */
import { integer, pgSchema, primaryKey, text } from "drizzle-orm/pg-core";
import { defineTables, pgKit } from "../tables";

const { int64 } = pgKit;

export const {
  spots, spotAliases, spotFacing, spotTideStation, tideStations, plans, accounts, invitations, consoleSessions, apiKeys, embeds, alerts, alertWindows,
  alertDeliveries, usageCounters, rateLimitState, forecastDocuments, spotDemand, tideExtremes, spotTideModel, tideModelExtremes, observationSources,
  buoyLeadForecasts, climateCells, meta,
} = defineTables(pgKit);

// ── cluster ─────────────────────────────────────────────────────────────────────────────────────
/**
 * What only several servers on one database need to cooperate (docs/postgres.md, "Several servers"): the state of
 * the running processes and what one server keeps in its data directory (the certificates of `serve --https`), not
 * data. Its own PostgreSQL schema, so `public` stays the mirror of the SQLite tables that `surfcast migrate` copies.
 */
export const cluster = pgSchema("cluster");

/** One row per run of a job for one slot (a scheduled time): a slot finished by one server is skipped by the rest. */
export const jobRuns = cluster.table(
  "job_runs",
  {
    name: text("name").notNull(),
    slot: text("slot").notNull(),
    node: text("node").notNull(),
    startedAt: int64("started_at").notNull(),
    /** Null while it runs, and for good when its server died during the run: the next holder takes the slot over. */
    finishedAt: int64("finished_at"),
    outcome: text("outcome", { enum: ["ok", "failed"] }),
  },
  (t) => [primaryKey({ columns: [t.name, t.slot] })],
);

/** Bumped in the transaction of every change a server keeps a copy of: the safety net under LISTEN/NOTIFY. */
export const changeCounters = cluster.table("change_counters", {
  topic: text("topic").primaryKey(),
  version: int64("version").notNull(),
});

/** The servers running on this database, each refreshing `seen_at` while it lives. */
export const nodes = cluster.table("nodes", {
  id: text("id").primaryKey(),
  host: text("host").notNull(),
  pid: integer("pid").notNull(),
  version: text("version").notNull(),
  startedAt: int64("started_at").notNull(),
  seenAt: int64("seen_at").notNull(),
  address: text("address"),
});

// ── tls: `serve --https` on several servers (tls/postgres-store.ts; one server keeps these in <data dir>/tls/) ──
/** The certificates ordered by ACME, by name (their first domain), each with its private key (PEM). */
export const tlsCertificates = cluster.table("tls_certificates", {
  name: text("name").primaryKey(),
  cert: text("cert").notNull(),
  key: text("key").notNull(),
  savedAt: int64("saved_at").notNull(),
});

/** The ACME account's private key (PEM): one row, made by the first order. */
export const acmeAccountKeys = cluster.table("acme_account_keys", {
  id: text("id").primaryKey(),
  pem: text("pem").notNull(),
  savedAt: int64("saved_at").notNull(),
});

/** The HTTP-01 challenges of an order in flight: the ACME server may fetch one from any of the servers. */
export const acmeChallenges = cluster.table("acme_challenges", {
  token: text("token").primaryKey(),
  keyAuthorization: text("key_authorization").notNull(),
  createdAt: int64("created_at").notNull(),
});
