/**
 * The tables both databases hold, declared once (defineTables) and built by each database's column kit: the SQLite
 * schema (db/schema.ts) and the PostgreSQL schema's `public` tables (db/postgres/schema.ts) have the same tables,
 * columns, keys and indexes, so a row copies across unchanged (docs/postgres.md, "Types").
 * Times are epoch milliseconds (UTC) unless a column says otherwise.
 */
import type { ChangeColumnTableName } from "drizzle-orm";
import * as pg from "drizzle-orm/pg-core";
import * as sqlite from "drizzle-orm/sqlite-core";

/**
 * PostgreSQL's column for each kind of value, whose types the stores are written against (db/store-dialect.ts).
 * SQLite's INTEGER holds 64 bits, so every integer is `bigint` (read as a JS number, like bun:sqlite does); its REAL
 * is a double, so `double precision` (PostgreSQL's `real` is 32-bit); the 0/1 flags the code reads as booleans are
 * `boolean`; bytes are `bytea`.
 */
export const pgKit = {
  table: pg.pgTable,
  index: pg.index,
  primaryKey: pg.primaryKey,
  text: pg.text,
  int64: <N extends string>(name: N) => pg.bigint(name, { mode: "number" }),
  double: pg.doublePrecision,
  flag: pg.boolean,
  bytes: pg.customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => "bytea" }),
  /** By default, not always: `surfcast migrate` copies the ids SQLite gave, then moves the sequence past them. */
  serialId: <N extends string>(name: N) => pg.bigint(name, { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
};

type ColumnKit = typeof pgKit;

/** SQLite's column for each kind of value, called as PostgreSQL's is. */
const sqliteKit = {
  table: sqlite.sqliteTable,
  index: sqlite.index,
  primaryKey: sqlite.primaryKey,
  text: sqlite.text,
  int64: sqlite.integer,
  double: sqlite.real,
  flag: (name: string) => sqlite.integer(name, { mode: "boolean" }),
  bytes: (name: string) => sqlite.blob(name, { mode: "buffer" }),
  serialId: (name: string) => sqlite.integer(name).primaryKey({ autoIncrement: true }),
} satisfies Record<keyof ColumnKit, unknown>;

/** Every table both databases hold, built with `kit`'s columns. */
export function defineTables(kit: ColumnKit) {
  const { table, index, primaryKey, text, int64, double, flag, bytes, serialId } = kit;

  /** The columns that point at a spot (its rows go with it), an account, a key or an alert (its rows go with it). */
  const spotKey = () => text("spot_id").references(() => spots.id, { onDelete: "cascade" });
  const accountKey = () => int64("account_id").notNull().references(() => accounts.id);
  const apiKeyKey = () => text("key_id").notNull().references(() => apiKeys.id);
  const alertKey = () => text("alert_id").notNull().references(() => alerts.id, { onDelete: "cascade" });

  // ── spots ──────────────────────────────────────────────────────────────────────────────────────
  const spots = table(
    "spots",
    {
      /** Stable slug, the public id. */
      id: text("id").primaryKey(),
      /** 16-hex id derived from the source record; also accepted as a spot id. */
      hexId: text("hex_id").notNull().unique(),
      name: text("name").notNull(),
      country: text("country").notNull(),
      region: text("region"),
      lat: double("lat").notNull(),
      lng: double("lng").notNull(),
      /** Facing (bearing toward open water, degrees) given by an import; wins over the computed one. */
      facingOverride: double("facing_override"),
      /** Tideless flag given by an import; wins over the station rule. */
      tidelessOverride: flag("tideless_override"),
    },
    (t) => [index("spots_country_idx").on(t.country)],
  );

  const spotAliases = table(
    "spot_aliases",
    {
      spotId: spotKey().notNull(),
      alias: text("alias").notNull(),
    },
    (t) => [primaryKey({ columns: [t.spotId, t.alias] })],
  );

  /** Computed facing per spot (spots/orientation). NULL facing = unknown (far from coast, no open arc). */
  const spotFacing = table("spot_facing", {
    spotId: spotKey().primaryKey(),
    facing: double("facing"),
    method: text("method").notNull(),
    computedAt: int64("computed_at").notNull(),
  });

  /** The tide station chosen to represent a spot, or why it is tideless (tides/stations). */
  const spotTideStation = table("spot_tide_station", {
    spotId: spotKey().primaryKey(),
    tideless: flag("tideless").notNull(),
    stationId: text("station_id"),
    stationName: text("station_name"),
    stationSource: text("station_source"),
    distanceKm: double("distance_km"),
    datum: text("datum"),
    reason: text("reason").notNull(),
    computedAt: int64("computed_at").notNull(),
  });

  /**
   * What predicting a chosen station needs (tides/record.ts): its constituents, datums and offsets as JSON, copied out
   * of the tide database when the station is chosen, so serving and refreshing never load the whole database.
   */
  const tideStations = table("tide_stations", {
    id: text("id").primaryKey(),
    record: text("record").notNull(),
  });

  // ── access ─────────────────────────────────────────────────────────────────────────────────────
  const plans = table("plans", {
    name: text("name").primaryKey(),
    dailyLimit: int64("daily_limit").notNull(),
    minuteLimit: int64("minute_limit").notNull(),
    maxKeys: int64("max_keys").notNull(),
    attributionRequired: flag("attribution_required").notNull(),
    /** Condition alerts an account may have (src/alerts/). */
    maxAlerts: int64("max_alerts").notNull().default(0),
  });

  const accounts = table("accounts", {
    id: serialId("id"),
    email: text("email").notNull().unique(),
    plan: text("plan")
      .notNull()
      .references(() => plans.name),
    /** Custom limits (the Scale plan's "custom" terms); NULL = the plan's default. */
    dailyLimit: int64("daily_limit"),
    minuteLimit: int64("minute_limit"),
    maxKeys: int64("max_keys"),
    disabled: flag("disabled").notNull().default(false),
    createdAt: int64("created_at").notNull(),
    /** Console password, argon2id PHC string from Bun.password; NULL until the owner follows an invitation. */
    passwordHash: text("password_hash"),
    /** Operators of this server: may use the console's operator pages. */
    admin: flag("admin").notNull().default(false),
  });

  /** One-time console links (invitation or set-password). Only the SHA-256 of the token is stored. */
  const invitations = table(
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

  /** Console sign-ins. Only the SHA-256 of the cookie's token is stored. */
  const consoleSessions = table(
    "console_sessions",
    {
      tokenHash: text("token_hash").primaryKey(),
      accountId: accountKey(),
      createdAt: int64("created_at").notNull(),
      /** Refreshed at most once a minute; the idle expiry counts from here. */
      lastSeenAt: int64("last_seen_at").notNull(),
    },
    (t) => [index("console_sessions_account_idx").on(t.accountId)],
  );

  const apiKeys = table(
    "api_keys",
    {
      id: text("id").primaryKey(),
      accountId: accountKey(),
      name: text("name").notNull(),
      /** SHA-256 of the full key, hex. The key itself is never stored. */
      hash: text("hash").notNull().unique(),
      /** First characters of the key, for operators to recognise it (e.g. `sk_live_3f9a`). */
      prefix: text("prefix").notNull(),
      createdAt: int64("created_at").notNull(),
      revokedAt: int64("revoked_at"),
    },
    (t) => [index("api_keys_account_idx").on(t.accountId)],
  );

  /**
   * Forecast pictures for web pages and shop screens (src/embed/): a public, unguessable id that shows 1..12 spots
   * and counts its views on the key it belongs to. The key itself never leaves the database.
   */
  const embeds = table(
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
      createdAt: int64("created_at").notNull(),
      revokedAt: int64("revoked_at"),
    },
    (t) => [index("embeds_key_idx").on(t.keyId)],
  );

  /**
   * Condition alerts (src/alerts/, docs/alerts.md): "tell me when it's on" at one spot, for one of the owner's keys,
   * delivered as a signed webhook or an e-mail, and listed in a calendar feed.
   */
  const alerts = table(
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
      disabledAt: int64("disabled_at"),
      createdAt: int64("created_at").notNull(),
      /** When the e-mail address's owner clicked the confirmation link (a webhook is confirmed when made); null until then. */
      confirmedAt: int64("confirmed_at"),
      /** SHA-256 of the last confirmation e-mail's token, hex: made when that e-mail is sent, so none rests in the clear. */
      confirmTokenHash: text("confirm_token_hash").unique(),
      /** When the last confirmation e-mail was sent: its link expires a while after. */
      confirmSentAt: int64("confirm_sent_at"),
    },
    (t) => [index("alerts_key_idx").on(t.keyId), index("alerts_spot_idx").on(t.spotId)],
  );

  /** The fire-once ledger: each alert's windows of its last evaluation (alerts/condition.ts fireOnce). */
  const alertWindows = table(
    "alert_windows",
    {
      alertId: alertKey(),
      start: int64("start").notNull(),
      /** Exclusive. */
      end: int64("end").notNull(),
    },
    (t) => [primaryKey({ columns: [t.alertId, t.start] })],
  );

  /**
   * The outbox and delivery log: one row per attempt. An event (one window, or a test) keeps its `event_id` (the
   * webhook-id) over its retries; a row is `pending` until attempted at or after `scheduled_at`.
   */
  const alertDeliveries = table(
    "alert_deliveries",
    {
      /** `dlv_` and 16 random hex digits. */
      id: text("id").primaryKey(),
      alertId: alertKey(),
      /** `msg_` and 24 random hex digits: the webhook-id, the same for every attempt of an event. */
      eventId: text("event_id").notNull(),
      /** 1 for the first attempt. */
      attempt: int64("attempt").notNull(),
      scheduledAt: int64("scheduled_at").notNull(),
      attemptedAt: int64("attempted_at"),
      statusCode: int64("status_code"),
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
  const usageCounters = table(
    "usage_counters",
    {
      keyId: text("key_id").notNull(),
      day: text("day").notNull(),
      endpoint: text("endpoint").notNull(),
      count: int64("count").notNull(),
    },
    (t) => [primaryKey({ columns: [t.keyId, t.day, t.endpoint] })],
  );

  /** Per-minute burst window per key (times of the requests admitted in the last 60 s), persisted across restarts. */
  const rateLimitState = table("rate_limit_state", {
    keyId: text("key_id").primaryKey(),
    /** JSON array of epoch-ms request times, oldest first. */
    recent: text("recent").notNull(),
    updatedAt: int64("updated_at").notNull(),
  });

  // ── forecasts and tides ───────────────────────────────────────────────────────────────────────
  /** One forecast document per spot: the full stored horizon, sliced from "now" when served. */
  const forecastDocuments = table("forecast_documents", {
    spotId: spotKey().primaryKey(),
    updatedAt: int64("updated_at").notNull(),
    /**
     * Brotli-compressed JSON (forecast/store.ts): { hours: ForecastHour[], daily: DailyWeather[] } over the whole fetched
     * horizon, ~5 KB instead of ~60 KB. SQLite rows written before compression hold the JSON as text and are read as
     * such; on PostgreSQL it is always compressed: `surfcast migrate` compresses those text bodies.
     */
    body: bytes("body").notNull(),
  });

  /**
   * When each spot's forecast was last asked for (forecast/demand.ts): with the refresh scope `requested`, the
   * scheduled refreshes cover only the spots asked for recently. Written at most once an hour per spot.
   */
  const spotDemand = table("spot_demand", {
    spotId: spotKey().primaryKey(),
    requestedAt: int64("requested_at").notNull(),
  });

  /** High and low waters per spot: epoch ms, meters above the source's datum. */
  const extremesTable = (name: string) =>
    table(
      name,
      {
        spotId: spotKey().notNull(),
        time: int64("time").notNull(),
        type: text("type", { enum: ["high", "low"] }).notNull(),
        height: double("height").notNull(),
      },
      (t) => [primaryKey({ columns: [t.spotId, t.time] })],
    );

  /** The stations' predicted extremes over the rolling window (tides/window.ts), meters above the station's datum. */
  const tideExtremes = extremesTable("tide_extremes");

  /**
   * What the sea-level model (Open-Meteo Marine `sea_level_height_msl`) said about a spot at the last refresh that
   * fetched it (tides/source.ts decides from this and the station choice which source serves the spot).
   */
  const spotTideModel = table("spot_tide_model", {
    spotId: spotKey().primaryKey(),
    /** false: the model has no sea level at this point (lake, river, pool). */
    hasData: flag("has_data").notNull(),
    /** Largest rise or fall between model extremes over every window fetched since `since` (m). */
    rangeM: double("range_m").notNull(),
    /** The chosen station's largest rise or fall over the last fetched window, for the agreement test (m); null without a station. */
    stationRangeM: double("station_range_m"),
    /** The last fetched window's own largest rise or fall (m). */
    windowRangeM: double("window_range_m").notNull(),
    since: int64("since").notNull(),
    fetchedAt: int64("fetched_at").notNull(),
  });

  /** High and low waters found in the model's hourly sea level (tides/extremes.ts), meters above MSL. */
  const tideModelExtremes = extremesTable("tide_model_extremes");

  // ── observations ───────────────────────────────────────────────────────────────────────────────
  /**
   * What the observations room keeps of each upstream source (observations/store.ts), as JSON: NDBC's station table
   * (key `stations`), a buoy's parsed files and attempts (`buoy:ID`), the models' recent hours at a buoy
   * (`hindcast:ID`). Each is read and replaced whole, at most every half hour.
   */
  const observationSources = table("observation_sources", {
    key: text("key").primaryKey(),
    body: text("body").notNull(),
    /** The source's last attempt, good or bad. */
    checkedAt: int64("checked_at").notNull(),
  });

  /** Each model's forecast issued at a buoy's position, by issue and hour: the verification by lead day. */
  const buoyLeadForecasts = table(
    "buoy_lead_forecasts",
    {
      /** Upper-cased station id. */
      buoyId: text("buoy_id").notNull(),
      model: text("model").notNull(),
      issuedAt: int64("issued_at").notNull(),
      /** The hour forecast. */
      hour: int64("hour").notNull(),
      waveHeight: double("wave_height").notNull(),
    },
    (t) => [primaryKey({ columns: [t.buoyId, t.model, t.issuedAt, t.hour] })],
  );

  // ── climate ────────────────────────────────────────────────────────────────────────────────────
  /**
   * A spot's climate by its ERA5-Ocean cell (climate/store.ts): written once the cell's whole decade is fetched,
   * replaced only by a climate of other years. `summary` is the cell's months and grid point as JSON; `hours` the
   * decade's hours, 16-bit columns under brotli (climate/hours-codec.ts).
   */
  const climateCells = table("climate_cells", {
    cellKey: text("cell_key").primaryKey(),
    yearsFrom: int64("years_from").notNull(),
    yearsTo: int64("years_to").notNull(),
    computedAt: int64("computed_at").notNull(),
    summary: text("summary").notNull(),
    hours: bytes("hours").notNull(),
  });

  /** Small key/value facts: catalog hash, tide window bounds, last refresh. */
  const meta = table("meta", {
    key: text("key").primaryKey(),
    value: text("value").notNull(),
  });

  return {
    spots, spotAliases, spotFacing, spotTideStation, tideStations, plans, accounts, invitations, consoleSessions, apiKeys, embeds, alerts, alertWindows,
    alertDeliveries, usageCounters, rateLimitState, forecastDocuments, spotDemand, tideExtremes, spotTideModel, tideModelExtremes, observationSources,
    buoyLeadForecasts, climateCells, meta,
  };
}

/** The tables as PostgreSQL builds them: the types the stores are written against. */
export type Tables = ReturnType<typeof defineTables>;

/** A PostgreSQL table's SQLite twin: the same columns, each typed as PostgreSQL's (the kits' columns read alike). */
type SqliteTwin<T extends pg.PgTable> = sqlite.SQLiteTableWithColumns<{
  name: T["_"]["name"];
  schema: undefined;
  columns: { [K in keyof T["_"]["columns"]]: ChangeColumnTableName<T["_"]["columns"][K], T["_"]["name"], "sqlite"> };
  dialect: "sqlite";
}>;

/**
 * The tables as SQLite builds them. One function cannot be typed for two dialects' column builders, so defineTables
 * is typed by PostgreSQL's kit and SQLite's tables take their twins' types; both schemas' migrations and
 * test/db/postgres-foundation.test.ts check what each kit builds.
 */
export const sqliteTables = () => defineTables(sqliteKit as unknown as ColumnKit) as unknown as { [K in keyof Tables]: SqliteTwin<Tables[K]> };
