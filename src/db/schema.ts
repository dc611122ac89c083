/**
 * The whole database schema. `drizzle-kit generate` turns changes here into SQL under `drizzle/`,
 * which `scripts/embed-migrations.ts` embeds into `src/db/migrations.gen.ts` for the compiled binary.
 * Times are epoch milliseconds (UTC) unless a column says otherwise.
 */
import { sqliteTable, text, integer, real, primaryKey, index, blob } from "drizzle-orm/sqlite-core";

/** The columns that point at a spot (its rows go with it), an account, a key or an alert (its rows go with it). */
const spotKey = () => text("spot_id").references(() => spots.id, { onDelete: "cascade" });
const accountKey = () => integer("account_id").notNull().references(() => accounts.id);
const apiKeyKey = () => text("key_id").notNull().references(() => apiKeys.id);
const alertKey = () => text("alert_id").notNull().references(() => alerts.id, { onDelete: "cascade" });

// ── spots ────────────────────────────────────────────────────────────────────────────────────────
export const spots = sqliteTable(
  "spots",
  {
    /** Stable slug, the public id. */
    id: text("id").primaryKey(),
    /** 16-hex id derived from the source record; also accepted as a spot id. */
    hexId: text("hex_id").notNull().unique(),
    name: text("name").notNull(),
    country: text("country").notNull(),
    region: text("region"),
    lat: real("lat").notNull(),
    lng: real("lng").notNull(),
    /** Facing (bearing toward open water, degrees) given by an import; wins over the computed one. */
    facingOverride: real("facing_override"),
    /** Tideless flag given by an import (1/0); wins over the station rule. */
    tidelessOverride: integer("tideless_override", { mode: "boolean" }),
  },
  (t) => [index("spots_country_idx").on(t.country)],
);

export const spotAliases = sqliteTable(
  "spot_aliases",
  {
    spotId: spotKey().notNull(),
    alias: text("alias").notNull(),
  },
  (t) => [primaryKey({ columns: [t.spotId, t.alias] })],
);

/** Computed facing per spot (spots/orientation). NULL facing = unknown (far from coast, no open arc). */
export const spotFacing = sqliteTable("spot_facing", {
  spotId: spotKey().primaryKey(),
  facing: real("facing"),
  method: text("method").notNull(),
  computedAt: integer("computed_at").notNull(),
});

/** The tide station chosen to represent a spot, or why it is tideless (tides/stations). */
export const spotTideStation = sqliteTable("spot_tide_station", {
  spotId: spotKey().primaryKey(),
  tideless: integer("tideless", { mode: "boolean" }).notNull(),
  stationId: text("station_id"),
  stationName: text("station_name"),
  stationSource: text("station_source"),
  distanceKm: real("distance_km"),
  datum: text("datum"),
  reason: text("reason").notNull(),
  computedAt: integer("computed_at").notNull(),
});

/**
 * What predicting a chosen station needs (tides/record.ts): its constituents, datums and offsets as JSON, copied out
 * of the tide database when the station is chosen, so serving and refreshing never load the whole database.
 */
export const tideStations = sqliteTable("tide_stations", {
  id: text("id").primaryKey(),
  record: text("record").notNull(),
});

// ── access ───────────────────────────────────────────────────────────────────────────────────────
export const plans = sqliteTable("plans", {
  name: text("name").primaryKey(),
  dailyLimit: integer("daily_limit").notNull(),
  minuteLimit: integer("minute_limit").notNull(),
  maxKeys: integer("max_keys").notNull(),
  attributionRequired: integer("attribution_required", { mode: "boolean" }).notNull(),
  /** Condition alerts an account may have (src/alerts/). */
  maxAlerts: integer("max_alerts").notNull().default(0),
});

export const accounts = sqliteTable("accounts", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  email: text("email").notNull().unique(),
  plan: text("plan")
    .notNull()
    .references(() => plans.name),
  /** Custom limits (the Scale plan's "custom" terms); NULL = the plan's default. */
  dailyLimit: integer("daily_limit"),
  minuteLimit: integer("minute_limit"),
  maxKeys: integer("max_keys"),
  disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
  createdAt: integer("created_at").notNull(),
  /** Console password, argon2id PHC string from Bun.password; NULL until the owner follows an invitation. */
  passwordHash: text("password_hash"),
  /** Operators of this server: may use the console's operator pages. */
  admin: integer("admin", { mode: "boolean" }).notNull().default(false),
});

/** One-time console links (invitation or set-password). Only the SHA-256 of the token is stored. */
export const invitations = sqliteTable(
  "invitations",
  {
    tokenHash: text("token_hash").primaryKey(),
    accountId: accountKey(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
  },
  (t) => [index("invitations_account_idx").on(t.accountId)],
);

/** Console sign-ins. Only the SHA-256 of the cookie's token is stored. */
export const consoleSessions = sqliteTable(
  "console_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    accountId: accountKey(),
    createdAt: integer("created_at").notNull(),
    /** Refreshed at most once a minute; the idle expiry counts from here. */
    lastSeenAt: integer("last_seen_at").notNull(),
  },
  (t) => [index("console_sessions_account_idx").on(t.accountId)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: accountKey(),
    name: text("name").notNull(),
    /** SHA-256 of the full key, hex. The key itself is never stored. */
    hash: text("hash").notNull().unique(),
    /** First characters of the key, for operators to recognise it (e.g. `sk_live_3f9a`). */
    prefix: text("prefix").notNull(),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("api_keys_account_idx").on(t.accountId)],
);

/**
 * Forecast pictures for web pages and shop screens (src/embed/): a public, unguessable id that shows 1..12 spots
 * and counts its views on the key it belongs to. The key itself never leaves the database.
 */
export const embeds = sqliteTable(
  "embeds",
  {
    /** 16 random bytes, base64url (22 characters): the public id in /embed/{id}. */
    id: text("id").primaryKey(),
    keyId: apiKeyKey(),
    /** JSON array of canonical spot ids, in display order. */
    spots: text("spots").notNull(),
    /** JSON array of origins allowed to frame the page (`https://shop.example`); empty = this server's own. */
    origins: text("origins").notNull(),
    units: text("units", { enum: ["metric", "imperial"] }).notNull(),
    theme: text("theme", { enum: ["light", "dark"] }).notNull(),
    /** The language of the page's words, dates and numbers (embed/lang/: en, es, fr, pt, de, it). */
    lang: text("lang").notNull().default("en"),
    createdAt: integer("created_at").notNull(),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("embeds_key_idx").on(t.keyId)],
);

/**
 * Condition alerts (src/alerts/, docs/alerts.md): "tell me when it's on" at one spot, for one of the owner's keys,
 * delivered as a signed webhook or an e-mail, and listed in a calendar feed.
 */
export const alerts = sqliteTable(
  "alerts",
  {
    /** `alert_` and 16 random hex digits. */
    id: text("id").primaryKey(),
    keyId: apiKeyKey(),
    spotId: spotKey().notNull(),
    name: text("name").notNull(),
    /** The condition as JSON (alerts/condition.ts AlertCondition). */
    condition: text("condition").notNull(),
    delivery: text("delivery", { enum: ["webhook", "email"] }).notNull(),
    /** The webhook's URL or the e-mail address. */
    target: text("target").notNull(),
    /**
     * The webhook's signing secret (`whsec_…`), in the clear: signing needs it (Standard Webhooks is HMAC). It signs
     * messages to the owner's receiver and opens nothing here, unlike the hashed credentials. Null for e-mail.
     */
    webhookSecret: text("webhook_secret"),
    /** SHA-256 of the calendar feed URL's secret token, hex. */
    calendarTokenHash: text("calendar_token_hash").notNull().unique(),
    /** Why the alert stopped (`gone`: the receiver answered 410; `unsubscribed`); null while it is on. */
    disabledReason: text("disabled_reason"),
    disabledAt: integer("disabled_at"),
    createdAt: integer("created_at").notNull(),
    /** When the e-mail address's owner clicked the confirmation link (a webhook is confirmed when made); null until then. */
    confirmedAt: integer("confirmed_at"),
    /** SHA-256 of the last confirmation e-mail's token, hex: made when that e-mail is sent, so none rests in the clear. */
    confirmTokenHash: text("confirm_token_hash").unique(),
    /** When the last confirmation e-mail was sent: its link expires a while after. */
    confirmSentAt: integer("confirm_sent_at"),
  },
  (t) => [index("alerts_key_idx").on(t.keyId), index("alerts_spot_idx").on(t.spotId)],
);

/** The fire-once ledger: each alert's windows of its last evaluation (alerts/condition.ts fireOnce). */
export const alertWindows = sqliteTable(
  "alert_windows",
  {
    alertId: alertKey(),
    start: integer("start").notNull(),
    /** Exclusive. */
    end: integer("end").notNull(),
  },
  (t) => [primaryKey({ columns: [t.alertId, t.start] })],
);

/**
 * The outbox and delivery log: one row per attempt. An event (one window, or a test) keeps its `event_id` (the
 * webhook-id) over its retries; a row is `pending` until attempted at or after `scheduled_at`.
 */
export const alertDeliveries = sqliteTable(
  "alert_deliveries",
  {
    /** `dlv_` and 16 random hex digits. */
    id: text("id").primaryKey(),
    alertId: alertKey(),
    /** `msg_` and 24 random hex digits: the webhook-id, the same for every attempt of an event. */
    eventId: text("event_id").notNull(),
    /** 1 for the first attempt. */
    attempt: integer("attempt").notNull(),
    scheduledAt: integer("scheduled_at").notNull(),
    attemptedAt: integer("attempted_at"),
    statusCode: integer("status_code"),
    error: text("error"),
    outcome: text("outcome", { enum: ["pending", "delivered", "failed", "gone", "refused"] }).notNull(),
    /** What is sent: a window, a test event, or an e-mail address's confirmation message. */
    kind: text("kind", { enum: ["window", "test", "confirmation"] }).notNull().default("window"),
    /** The event's JSON body, as sent (and sent again). */
    payload: text("payload").notNull(),
    /**
     * SHA-256 of the unsubscribe link's token in an e-mail attempt, hex. Each e-mail gets its own token when it is
     * sent, so no token rests in the clear; any of an alert's e-mails unsubscribes it while its log row lasts.
     */
    unsubscribeTokenHash: text("unsubscribe_token_hash"),
  },
  (t) => [index("alert_deliveries_event_idx").on(t.eventId), index("alert_deliveries_unsubscribe_idx").on(t.unsubscribeTokenHash), index("alert_deliveries_due_idx").on(t.outcome, t.scheduledAt), index("alert_deliveries_alert_idx").on(t.alertId, t.scheduledAt)],
);

/** Counted requests per key, UTC day (`YYYY-MM-DD`) and endpoint name (`spots.search`, `mcp.get_tides`, …). */
export const usageCounters = sqliteTable(
  "usage_counters",
  {
    keyId: text("key_id").notNull(),
    day: text("day").notNull(),
    endpoint: text("endpoint").notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.keyId, t.day, t.endpoint] })],
);

/** Per-minute burst window per key (times of the requests admitted in the last 60 s), persisted across restarts. */
export const rateLimitState = sqliteTable("rate_limit_state", {
  keyId: text("key_id").primaryKey(),
  /** JSON array of epoch-ms request times, oldest first. */
  recent: text("recent").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

// ── forecasts and tides ─────────────────────────────────────────────────────────────────────────
/** One forecast document per spot: the full stored horizon, sliced from "now" when served. */
export const forecastDocuments = sqliteTable("forecast_documents", {
  spotId: spotKey().primaryKey(),
  updatedAt: integer("updated_at").notNull(),
  /**
   * Brotli-compressed JSON (forecast/store.ts): { hours: ForecastHour[], daily: DailyWeather[] } over the whole fetched
   * horizon, ~5 KB instead of ~60 KB. Rows written before compression hold the JSON as text and are read as such.
   */
  body: blob("body", { mode: "buffer" }).notNull(),
});

/**
 * When each spot's forecast was last asked for (forecast/demand.ts): with the refresh scope `requested`, the
 * scheduled refreshes cover only the spots asked for recently. Written at most once an hour per spot.
 */
export const spotDemand = sqliteTable("spot_demand", {
  spotId: spotKey().primaryKey(),
  requestedAt: integer("requested_at").notNull(),
});

/** High and low waters per spot: epoch ms, meters above the source's datum. */
const extremesTable = (name: string) =>
  sqliteTable(
    name,
    {
      spotId: spotKey().notNull(),
      time: integer("time").notNull(),
      type: text("type", { enum: ["high", "low"] }).notNull(),
      height: real("height").notNull(),
    },
    (t) => [primaryKey({ columns: [t.spotId, t.time] })],
  );

/** The stations' predicted extremes over the rolling window (tides/window.ts), meters above the station's datum. */
export const tideExtremes = extremesTable("tide_extremes");

/**
 * What the sea-level model (Open-Meteo Marine `sea_level_height_msl`) said about a spot at the last refresh that
 * fetched it (tides/source.ts decides from this and the station choice which source serves the spot).
 */
export const spotTideModel = sqliteTable("spot_tide_model", {
  spotId: spotKey().primaryKey(),
  /** false: the model has no sea level at this point (lake, river, pool). */
  hasData: integer("has_data", { mode: "boolean" }).notNull(),
  /** Largest rise or fall between model extremes over every window fetched since `since` (m). */
  rangeM: real("range_m").notNull(),
  /** The chosen station's largest rise or fall over the last fetched window, for the agreement test (m); null without a station. */
  stationRangeM: real("station_range_m"),
  /** The last fetched window's own largest rise or fall (m). */
  windowRangeM: real("window_range_m").notNull(),
  since: integer("since").notNull(),
  fetchedAt: integer("fetched_at").notNull(),
});

/** High and low waters found in the model's hourly sea level (tides/extremes.ts), meters above MSL. */
export const tideModelExtremes = extremesTable("tide_model_extremes");

// ── observations ─────────────────────────────────────────────────────────────────────────────────
/**
 * What the observations room keeps of each upstream source (observations/store.ts), as JSON: NDBC's station table
 * (key `stations`), a buoy's parsed files and attempts (`buoy:ID`), the models' recent hours at a buoy
 * (`hindcast:ID`). Each is read and replaced whole, at most every half hour.
 */
export const observationSources = sqliteTable("observation_sources", {
  key: text("key").primaryKey(),
  body: text("body").notNull(),
  /** The source's last attempt, good or bad. */
  checkedAt: integer("checked_at").notNull(),
});

/** Each model's forecast issued at a buoy's position, by issue and hour: the verification by lead day. */
export const buoyLeadForecasts = sqliteTable(
  "buoy_lead_forecasts",
  {
    /** Upper-cased station id. */
    buoyId: text("buoy_id").notNull(),
    model: text("model").notNull(),
    issuedAt: integer("issued_at").notNull(),
    /** The hour forecast. */
    hour: integer("hour").notNull(),
    waveHeight: real("wave_height").notNull(),
  },
  (t) => [primaryKey({ columns: [t.buoyId, t.model, t.issuedAt, t.hour] })],
);

// ── climate ──────────────────────────────────────────────────────────────────────────────────────
/**
 * A spot's climate by its ERA5-Ocean cell (climate/store.ts): written once the cell's whole decade is fetched,
 * replaced only by a climate of other years. `summary` is the cell's months and grid point as JSON; `hours` the
 * decade's hours, 16-bit columns under brotli (climate/hours-codec.ts).
 */
export const climateCells = sqliteTable("climate_cells", {
  cellKey: text("cell_key").primaryKey(),
  yearsFrom: integer("years_from").notNull(),
  yearsTo: integer("years_to").notNull(),
  computedAt: integer("computed_at").notNull(),
  summary: text("summary").notNull(),
  hours: blob("hours", { mode: "buffer" }).notNull(),
});

/** Small key/value facts: catalog hash, tide window bounds, last refresh. */
export const meta = sqliteTable("meta", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});
