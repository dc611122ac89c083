/**
 * The PostgreSQL schema: in `public`, the same tables, columns, keys and indexes as the SQLite schema (drizzle/*.sql
 * is the truth), so a row copies across unchanged (docs/postgres.md, "Types"); in `cluster`, what several servers
 * need to cooperate, which has no SQLite counterpart. `drizzle-kit generate --config
 * drizzle-pg.config.ts` turns changes here into SQL under `drizzle-pg/`, embedded into `migrations.gen.ts`.
 *
 * Type mapping: SQLite INTEGER is 64-bit, so every integer is `bigint` (read as a JS number, like bun:sqlite does);
 * REAL is a double, so `double precision` (PostgreSQL's `real` is 32-bit); the 0/1 flags the code reads as booleans
 * are `boolean`; the brotli forecast bodies are `bytea`.
 */
import { bigint, boolean, customType, doublePrecision, index, integer, pgSchema, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

const bytes = customType<{ data: Uint8Array; driverData: Uint8Array }>({
  dataType: () => "bytea",
});

/** Epoch milliseconds (UTC), and every other integer: SQLite holds 64 bits, so does `bigint`. */
const int64 = (name: string) => bigint(name, { mode: "number" });

/** The columns that point at a spot (its rows go with it), an account, a key or an alert (its rows go with it). */
const spotKey = () => text("spot_id").references(() => spots.id, { onDelete: "cascade" });
const accountKey = () => int64("account_id").notNull().references(() => accounts.id);
const apiKeyKey = () => text("key_id").notNull().references(() => apiKeys.id);
const alertKey = () => text("alert_id").notNull().references(() => alerts.id, { onDelete: "cascade" });

// ── spots ────────────────────────────────────────────────────────────────────────────────────────
export const spots = pgTable(
  "spots",
  {
    id: text("id").primaryKey(),
    hexId: text("hex_id").notNull().unique(),
    name: text("name").notNull(),
    country: text("country").notNull(),
    region: text("region"),
    lat: doublePrecision("lat").notNull(),
    lng: doublePrecision("lng").notNull(),
    facingOverride: doublePrecision("facing_override"),
    tidelessOverride: boolean("tideless_override"),
  },
  (t) => [index("spots_country_idx").on(t.country)],
);

export const spotAliases = pgTable(
  "spot_aliases",
  {
    spotId: spotKey().notNull(),
    alias: text("alias").notNull(),
  },
  (t) => [primaryKey({ columns: [t.spotId, t.alias] })],
);

export const spotFacing = pgTable("spot_facing", {
  spotId: spotKey().primaryKey(),
  facing: doublePrecision("facing"),
  method: text("method").notNull(),
  computedAt: int64("computed_at").notNull(),
});

export const spotTideStation = pgTable("spot_tide_station", {
  spotId: spotKey().primaryKey(),
  tideless: boolean("tideless").notNull(),
  stationId: text("station_id"),
  stationName: text("station_name"),
  stationSource: text("station_source"),
  distanceKm: doublePrecision("distance_km"),
  datum: text("datum"),
  reason: text("reason").notNull(),
  computedAt: int64("computed_at").notNull(),
});

export const tideStations = pgTable("tide_stations", {
  id: text("id").primaryKey(),
  record: text("record").notNull(),
});

// ── access ───────────────────────────────────────────────────────────────────────────────────────
export const plans = pgTable("plans", {
  name: text("name").primaryKey(),
  dailyLimit: int64("daily_limit").notNull(),
  minuteLimit: int64("minute_limit").notNull(),
  maxKeys: int64("max_keys").notNull(),
  attributionRequired: boolean("attribution_required").notNull(),
  maxAlerts: int64("max_alerts").notNull().default(0),
});

export const accounts = pgTable("accounts", {
  /** By default, not always: `surfcast migrate` copies the ids SQLite gave, then moves the sequence past them. */
  id: int64("id").primaryKey().generatedByDefaultAsIdentity(),
  email: text("email").notNull().unique(),
  plan: text("plan")
    .notNull()
    .references(() => plans.name),
  dailyLimit: int64("daily_limit"),
  minuteLimit: int64("minute_limit"),
  maxKeys: int64("max_keys"),
  disabled: boolean("disabled").notNull().default(false),
  createdAt: int64("created_at").notNull(),
  passwordHash: text("password_hash"),
  admin: boolean("admin").notNull().default(false),
});

export const invitations = pgTable(
  "invitations",
  {
    tokenHash: text("token_hash").primaryKey(),
    accountId: accountKey(),
    createdAt: int64("created_at").notNull(),
    expiresAt: int64("expires_at").notNull(),
    usedAt: int64("used_at"),
  },
  (t) => [index("invitations_account_idx").on(t.accountId)],
);

export const consoleSessions = pgTable(
  "console_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    accountId: accountKey(),
    createdAt: int64("created_at").notNull(),
    lastSeenAt: int64("last_seen_at").notNull(),
  },
  (t) => [index("console_sessions_account_idx").on(t.accountId)],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: accountKey(),
    name: text("name").notNull(),
    hash: text("hash").notNull().unique(),
    prefix: text("prefix").notNull(),
    createdAt: int64("created_at").notNull(),
    revokedAt: int64("revoked_at"),
  },
  (t) => [index("api_keys_account_idx").on(t.accountId)],
);

export const embeds = pgTable(
  "embeds",
  {
    id: text("id").primaryKey(),
    keyId: apiKeyKey(),
    spots: text("spots").notNull(),
    origins: text("origins").notNull(),
    units: text("units", { enum: ["metric", "imperial"] }).notNull(),
    theme: text("theme", { enum: ["light", "dark"] }).notNull(),
    /** The language of the page's words, dates and numbers (embed/lang/: en, es, fr, pt, de, it). */
    lang: text("lang").notNull().default("en"),
    createdAt: int64("created_at").notNull(),
    revokedAt: int64("revoked_at"),
  },
  (t) => [index("embeds_key_idx").on(t.keyId)],
);

export const alerts = pgTable(
  "alerts",
  {
    id: text("id").primaryKey(),
    keyId: apiKeyKey(),
    spotId: spotKey().notNull(),
    name: text("name").notNull(),
    condition: text("condition").notNull(),
    delivery: text("delivery", { enum: ["webhook", "email"] }).notNull(),
    target: text("target").notNull(),
    webhookSecret: text("webhook_secret"),
    calendarTokenHash: text("calendar_token_hash").notNull().unique(),
    disabledReason: text("disabled_reason"),
    disabledAt: int64("disabled_at"),
    createdAt: int64("created_at").notNull(),
    confirmedAt: int64("confirmed_at"),
    confirmTokenHash: text("confirm_token_hash").unique(),
    confirmSentAt: int64("confirm_sent_at"),
  },
  (t) => [index("alerts_key_idx").on(t.keyId), index("alerts_spot_idx").on(t.spotId)],
);

export const alertWindows = pgTable(
  "alert_windows",
  {
    alertId: alertKey(),
    start: int64("start").notNull(),
    end: int64("end").notNull(),
  },
  (t) => [primaryKey({ columns: [t.alertId, t.start] })],
);

export const alertDeliveries = pgTable(
  "alert_deliveries",
  {
    id: text("id").primaryKey(),
    alertId: alertKey(),
    eventId: text("event_id").notNull(),
    attempt: int64("attempt").notNull(),
    scheduledAt: int64("scheduled_at").notNull(),
    attemptedAt: int64("attempted_at"),
    statusCode: int64("status_code"),
    error: text("error"),
    outcome: text("outcome", { enum: ["pending", "delivered", "failed", "gone", "refused"] }).notNull(),
    kind: text("kind", { enum: ["window", "test", "confirmation"] }).notNull().default("window"),
    payload: text("payload").notNull(),
    unsubscribeTokenHash: text("unsubscribe_token_hash"),
  },
  (t) => [index("alert_deliveries_event_idx").on(t.eventId), index("alert_deliveries_unsubscribe_idx").on(t.unsubscribeTokenHash), index("alert_deliveries_due_idx").on(t.outcome, t.scheduledAt), index("alert_deliveries_alert_idx").on(t.alertId, t.scheduledAt)],
);

export const usageCounters = pgTable(
  "usage_counters",
  {
    keyId: text("key_id").notNull(),
    day: text("day").notNull(),
    endpoint: text("endpoint").notNull(),
    count: int64("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.day, t.endpoint] })],
);

export const rateLimitState = pgTable("rate_limit_state", {
  keyId: text("key_id").primaryKey(),
  recent: text("recent").notNull(),
  updatedAt: int64("updated_at").notNull(),
});

// ── forecasts and tides ─────────────────────────────────────────────────────────────────────────
export const forecastDocuments = pgTable("forecast_documents", {
  spotId: spotKey().primaryKey(),
  updatedAt: int64("updated_at").notNull(),
  /** Always brotli-compressed JSON: `surfcast migrate` compresses the text bodies SQLite kept from before compression. */
  body: bytes("body").notNull(),
});

export const spotDemand = pgTable("spot_demand", {
  spotId: spotKey().primaryKey(),
  requestedAt: int64("requested_at").notNull(),
});

const extremesTable = (name: string) =>
  pgTable(
    name,
    {
      spotId: spotKey().notNull(),
      time: int64("time").notNull(),
      type: text("type", { enum: ["high", "low"] }).notNull(),
      height: doublePrecision("height").notNull(),
    },
    (t) => [primaryKey({ columns: [t.spotId, t.time] })],
  );

export const tideExtremes = extremesTable("tide_extremes");

export const spotTideModel = pgTable("spot_tide_model", {
  spotId: spotKey().primaryKey(),
  hasData: boolean("has_data").notNull(),
  rangeM: doublePrecision("range_m").notNull(),
  stationRangeM: doublePrecision("station_range_m"),
  windowRangeM: doublePrecision("window_range_m").notNull(),
  since: int64("since").notNull(),
  fetchedAt: int64("fetched_at").notNull(),
});

export const tideModelExtremes = extremesTable("tide_model_extremes");

// ── observations ─────────────────────────────────────────────────────────────────────────────────
export const observationSources = pgTable("observation_sources", {
  key: text("key").primaryKey(),
  body: text("body").notNull(),
  checkedAt: int64("checked_at").notNull(),
});

export const buoyLeadForecasts = pgTable(
  "buoy_lead_forecasts",
  {
    buoyId: text("buoy_id").notNull(),
    model: text("model").notNull(),
    issuedAt: int64("issued_at").notNull(),
    hour: int64("hour").notNull(),
    waveHeight: doublePrecision("wave_height").notNull(),
  },
  (t) => [primaryKey({ columns: [t.buoyId, t.model, t.issuedAt, t.hour] })],
);

// ── climate ──────────────────────────────────────────────────────────────────────────────────────
export const climateCells = pgTable("climate_cells", {
  cellKey: text("cell_key").primaryKey(),
  yearsFrom: int64("years_from").notNull(),
  yearsTo: int64("years_to").notNull(),
  computedAt: int64("computed_at").notNull(),
  summary: text("summary").notNull(),
  hours: bytes("hours").notNull(),
});

export const meta = pgTable("meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

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
