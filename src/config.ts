/**
 * Runtime configuration: flags win over environment variables, which win over defaults.
 * Every knob is listed in the README's configuration table.
 */
import { resolve } from "node:path";
import { UserError } from "./core/errors";

export interface Config {
  dataDir: string;
  port: number;
  host: string;
  scheduler: boolean;
  openMeteo: {
    marineUrl: string;
    forecastUrl: string;
    apiKey: string | undefined;
    batchSize: number;
    timeoutMs: number;
    retries: number;
  };
  /** A refresh gives up the rest of its run after this many consecutive failed batches. */
  refreshGiveUpAfter: number;
  /** Cron expressions (UTC) for the forecast refresh. */
  refreshCron: string[];
  /** Origins allowed to call /mcp from a browser (DNS-rebinding protection); empty = same-host only. */
  mcpAllowedOrigins: string[];
  logLevel: "debug" | "info" | "warn" | "error";
  /** Prometheus metrics: off unless SURFCAST_METRICS=on; then served on 127.0.0.1:port/metrics only. */
  metrics: { enabled: boolean; port: number };
}

type Env = Record<string, string | undefined>;

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UserError(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

/** A `separator`-separated list (cron lists use `;`, since cron fields contain commas). */
function list(value: string | undefined, fallback: string[], separator: string | RegExp = /[;,]/): string[] {
  if (value === undefined || value.trim() === "") return fallback;
  return value
    .split(separator)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function loadConfig(flags: Partial<{ dataDir: string; port: number; host: string; scheduler: boolean }> = {}, env: Env = process.env): Config {
  const batchSize = intFrom(env.SURFCAST_OPEN_METEO_BATCH_SIZE, 500, "SURFCAST_OPEN_METEO_BATCH_SIZE");
  if (batchSize < 1 || batchSize > 1000) throw new UserError("SURFCAST_OPEN_METEO_BATCH_SIZE must be between 1 and 1000");
  const level = (env.SURFCAST_LOG_LEVEL ?? "info") as Config["logLevel"];
  return {
    dataDir: resolve(flags.dataDir ?? env.SURFCAST_DATA_DIR ?? "./var"),
    port: flags.port ?? intFrom(env.PORT, 8080, "PORT"),
    host: flags.host ?? env.HOST ?? "0.0.0.0",
    scheduler: flags.scheduler ?? env.SURFCAST_SCHEDULER !== "off",
    openMeteo: {
      marineUrl: (env.SURFCAST_OPEN_METEO_MARINE_URL ?? "https://marine-api.open-meteo.com").replace(/\/+$/, ""),
      forecastUrl: (env.SURFCAST_OPEN_METEO_FORECAST_URL ?? "https://api.open-meteo.com").replace(/\/+$/, ""),
      apiKey: env.SURFCAST_OPEN_METEO_API_KEY || undefined,
      batchSize,
      timeoutMs: intFrom(env.SURFCAST_OPEN_METEO_TIMEOUT_MS, 30_000, "SURFCAST_OPEN_METEO_TIMEOUT_MS"),
      retries: intFrom(env.SURFCAST_OPEN_METEO_RETRIES, 3, "SURFCAST_OPEN_METEO_RETRIES"),
    },
    refreshGiveUpAfter: Math.max(1, intFrom(env.SURFCAST_REFRESH_GIVE_UP_AFTER, 3, "SURFCAST_REFRESH_GIVE_UP_AFTER")),
    refreshCron: list(env.SURFCAST_REFRESH_CRON, ["0 1 * * *", "0 13 * * *"], ";"),
    mcpAllowedOrigins: list(env.SURFCAST_MCP_ALLOWED_ORIGINS, []),
    logLevel: ["debug", "info", "warn", "error"].includes(level) ? level : "info",
    metrics: { enabled: env.SURFCAST_METRICS === "on", port: intFrom(env.SURFCAST_METRICS_PORT, 9464, "SURFCAST_METRICS_PORT") },
  };
}
