/**
 * Runtime configuration: flags win over environment variables, which win over defaults.
 * Every knob is listed in the README's configuration table.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { DEFAULT_CACHE_MB } from "./core/caches";
import { UserError } from "./core/errors";
import { REFRESH_SCOPES, type RefreshScope } from "./forecast/demand";
import { parseWaveModels } from "./forecast/models";
import { DEFAULT_BUOY_RADIUS_KM } from "./observations/readings";
import { DEFAULT_NDBC_URL } from "./observations/fetcher";
import { DEFAULT_ARCHIVE_URL } from "./climate/era5";
import { parseAllowedNetworks, type AllowedNetworks } from "./alerts/delivery/address";
import { parseTrustedProxies, type TrustedProxies } from "./core/proxy";
import { DATABASE_URL_PROTOCOLS, REDIS_URL_PROTOCOLS, serviceUrl } from "./core/service-url";

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
    /** The wave models whose agreement each hour shows (SURFCAST_WAVE_MODELS; forecast/models.ts). */
    waveModels: string[];
  };
  /** A refresh gives up the rest of its run after this many consecutive failed batches. */
  refreshGiveUpAfter: number;
  /** Cron expressions (UTC) for the forecast refresh. */
  refreshCron: string[];
  /** Which spots the start-up and scheduled refreshes cover (forecast/demand.ts): SURFCAST_REFRESH_SCOPE, serve --refresh-scope. */
  refreshScope: RefreshScope;
  /** Origins allowed to call /mcp from a browser (DNS-rebinding protection); empty = same-host only. */
  mcpAllowedOrigins: string[];
  /** The server's own host names besides loopback (SURFCAST_ALLOWED_HOSTS and the public URL's host). */
  allowedHosts: string[];
  logLevel: "debug" | "info" | "warn" | "error";
  /** The developer console under /console (off with --no-console or SURFCAST_CONSOLE=off). */
  console: boolean;
  /** Base of every link the console prints or shows, without a trailing slash. */
  publicUrl: string;
  /** True when SURFCAST_PUBLIC_URL set publicUrl; else it is a guess that the commands replace (main.ts). */
  publicUrlSet: boolean;
  /** smtp(s)://user:pass@host:port to e-mail console invitations; unset = print only. */
  smtpUrl: string | undefined;
  smtpFrom: string;
  /** Prometheus metrics: off unless SURFCAST_METRICS=on; then served on 127.0.0.1:port/metrics only. */
  metrics: { enabled: boolean; port: number };
  /** `serve --demo`: synthetic upstream data from inside the binary (forecast/demo.ts); default data dir ./var-demo. */
  demo: boolean;
  /** Proxies whose X-Forwarded-For names the client (SURFCAST_TRUST_PROXY; core/proxy.ts); empty = the socket peer. */
  trustProxy: TrustedProxies;
  /** `serve` collects garbage at once while its resident size is above this (SURFCAST_MEMORY_TARGET_MB; 0 = never). */
  memoryTargetMb: number;
  /** `serve` drops its caches and hands freed memory back after this long without a request (SURFCAST_IDLE_RELEASE_S; 0 = never). */
  idleReleaseMs: number;
  /** MB the byte-bounded caches share (SURFCAST_CACHE_MB; core/caches.ts). */
  cacheMb: number;
  /** postgres://… shared by several servers (SURFCAST_DATABASE_URL, --database-url); unset = the data dir's SQLite file. Holds a password: print it through maskPassword only. */
  databaseUrl: string | undefined;
  /** Networks webhooks may reach although private (SURFCAST_WEBHOOK_ALLOWED_NETWORKS; alerts/delivery/address.ts). */
  webhookAllowedNetworks: AllowedNetworks;
  /** Buoy readings beside the forecast (observations/; docs/observations.md). */
  observations: {
    /** SURFCAST_OBSERVATIONS=off: NDBC is never asked, and every answer says `observations_off`. */
    enabled: boolean;
    /** SURFCAST_NDBC_URL, serve --ndbc-url: the station table and the buoys' realtime2 files. */
    ndbcUrl: string;
    /** SURFCAST_BUOY_RADIUS_KM: how far from a spot its buoy may be. */
    buoyRadiusKm: number;
    /** SURFCAST_BIAS_CORRECTION=on: wave heights scaled by the buoy's measured ratios where that is shown to help. */
    biasCorrection: boolean;
  };
  /** A spot's months from ERA5 (climate/; docs/climate.md). */
  climate: {
    /** SURFCAST_OPEN_METEO_ARCHIVE_URL: Open-Meteo's Historical Weather API, for ERA5's wind. */
    archiveUrl: string;
    /** SURFCAST_CLIMATE_YEARS: how many of the last full years a climate covers. */
    years: number;
  };
  /** redis://… for the counters several servers share (SURFCAST_REDIS_URL, --redis-url). Holds a password: print it through maskPassword only. */
  redisUrl: string | undefined;
  /** How `serve` speaks TLS (docs/https.md): not at all, with the operator's files, or with certificates it orders by ACME. */
  tls: TlsConfig;
}

export type TlsConfig =
  | { mode: "off" }
  /** `serve --tls-cert FILE --tls-key FILE`: TLS on --port, the files read again on SIGHUP and when they change. */
  | { mode: "files"; certFile: string; keyFile: string }
  /** `serve --https DOMAIN[,DOMAIN…]`: HTTPS on httpsPort, plain HTTP (challenges, redirects) on httpPort. */
  | { mode: "acme"; domains: string[]; httpsPort: number; httpPort: number; directoryUrl: string; email: string | undefined; caPem: string | undefined };

/** Let's Encrypt's production directory: what `serve --https` orders from unless SURFCAST_ACME_DIRECTORY says otherwise. */
export const LETS_ENCRYPT_DIRECTORY = "https://acme-v02.api.letsencrypt.org/directory";

interface TlsFlags {
  https?: string;
  httpsPort?: number;
  httpPort?: number;
  tlsCert?: string;
  tlsKey?: string;
}

type Env = Record<string, string | undefined>;

/**
 * Distinct cells per upstream request. 50 (not the API's 1,000): a batch's responses and the documents assembled from
 * them are the refresh's memory swing, and a full refresh under load peaks ~40 MB lower than with 200, no slower
 * against the local fake (146 requests instead of 36, the same call weight; bench/README.md). No tile of the shipped
 * catalog has more than 50 occupied cells, so none is split and no cell is fetched twice (docs/forecast.md).
 */
const DEFAULT_BATCH_SIZE = 50;

/** Resident size (MB) above which `serve` collects garbage at once (ops/memory.ts): a server at rest is ~70 MB, a busy one 120–180. */
const DEFAULT_MEMORY_TARGET_MB = 140;

/** Seconds without a request after which `serve` drops its caches (ops/memory.ts): a box at rest holds only what it needs. */
const DEFAULT_IDLE_RELEASE_S = 30;

/** The last full decade: long enough for a month's spread, recent enough for today's sea. */
const DEFAULT_CLIMATE_YEARS = 10;

function intFrom(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UserError(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

function portFrom(value: string | undefined, fallback: number, name: string): number {
  const port = intFrom(value, fallback, name);
  if (port > 65535) throw new UserError(`${name} must be a port number from 0 to 65535, got "${value}"`);
  return port;
}

/** A `separator`-separated list (cron lists use `;`, since cron fields contain commas). */
function list(value: string | undefined, fallback: string[], separator: string | RegExp = /[;,]/): string[] {
  if (value === undefined || value.trim() === "") return fallback;
  return value
    .split(separator)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The links' base without SURFCAST_PUBLIC_URL: this machine, at the server's port. */
export const localPublicUrl = (port: number, tls: TlsConfig = { mode: "off" }) => `${tls.mode === "files" ? "https" : "http"}://localhost:${port}`;

/** The links' base without SURFCAST_PUBLIC_URL: the first name of `--https`, else this machine at the server's port. */
function defaultPublicUrl(port: number, tls: TlsConfig): string {
  if (tls.mode !== "acme") return localPublicUrl(port, tls);
  return `https://${tls.domains[0]}${tls.httpsPort === 443 ? "" : `:${tls.httpsPort}`}`;
}

/** SURFCAST_PUBLIC_URL checked once here, so a typo is one clear line at start, not a broken link later. */
function publicUrlFrom(value: string | undefined, port: number, tls: TlsConfig): string {
  if (value === undefined || value.trim() === "") return defaultPublicUrl(port, tls);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new UserError(`SURFCAST_PUBLIC_URL must be an http(s) URL, got "${value}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new UserError(`SURFCAST_PUBLIC_URL must be an http(s) URL, got "${value}"`);
  return url.href.replace(/\/+$/, "");
}

/** A file the operator named, read now: a wrong path is one clear line at start. */
function readOperatorFile(path: string, name: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new UserError(`${name} ${path} cannot be read (${(err as { code?: string }).code ?? (err as Error).message}): check the path and that the server's user may read it`);
  }
}

/** A public DNS name: letters, digits and hyphens between dots; HTTP-01 cannot prove a wildcard or an IP address. */
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/;

function domainsFrom(value: string, name: string): string[] {
  const domains = [...new Set(list(value.toLowerCase(), [], ","))];
  for (const domain of domains) {
    if (!DOMAIN.test(domain)) throw new UserError(`${name}: "${domain}" is not a DNS name this server can get a certificate for (a name like surf.example.com; no wildcard, no IP address)`);
  }
  if (domains.length === 0) throw new UserError(`${name} needs at least one domain, e.g. --https surf.example.com`);
  return domains;
}

function directoryUrlFrom(value: string | undefined): string {
  if (value === undefined || value.trim() === "") return LETS_ENCRYPT_DIRECTORY;
  if (URL.parse(value.trim())?.protocol !== "https:") throw new UserError(`SURFCAST_ACME_DIRECTORY must be the https:// URL of an ACME directory, got "${value}"`);
  return value.trim();
}

function tlsFrom(flags: TlsFlags & { port?: number }, env: Env): TlsConfig {
  const httpsFrom = flags.https !== undefined ? "--https" : "SURFCAST_HTTPS_DOMAINS";
  const https = flags.https ?? (env.SURFCAST_HTTPS_DOMAINS || undefined);
  if (https !== undefined && (flags.tlsCert !== undefined || flags.tlsKey !== undefined)) {
    throw new UserError(`${httpsFrom} gets its own certificates and --tls-cert/--tls-key serve yours: give one or the other`);
  }
  if (https !== undefined) {
    if (flags.port !== undefined) throw new UserError("--port is not used with --https: it listens on --https-port (default 443) and --http-port (default 80)");
    const httpsPort = flags.httpsPort ?? 443;
    const httpPort = flags.httpPort ?? 80;
    if (httpsPort === httpPort) throw new UserError(`--https-port and --http-port must differ (both are ${httpsPort})`);
    const caFile = env.SURFCAST_ACME_CA_FILE || undefined;
    return {
      mode: "acme",
      domains: domainsFrom(https, httpsFrom),
      httpsPort,
      httpPort,
      directoryUrl: directoryUrlFrom(env.SURFCAST_ACME_DIRECTORY),
      email: env.SURFCAST_ACME_EMAIL || undefined,
      caPem: caFile === undefined ? undefined : readOperatorFile(caFile, "SURFCAST_ACME_CA_FILE"),
    };
  }
  if (flags.httpsPort !== undefined || flags.httpPort !== undefined) throw new UserError("--https-port and --http-port go with --https DOMAIN");
  if (flags.tlsCert === undefined && flags.tlsKey === undefined) return { mode: "off" };
  if (flags.tlsCert === undefined || flags.tlsKey === undefined) throw new UserError("--tls-cert FILE and --tls-key FILE go together: the certificate (chain) and its private key, both PEM");
  const certFile = resolve(flags.tlsCert);
  const keyFile = resolve(flags.tlsKey);
  readOperatorFile(certFile, "--tls-cert");
  readOperatorFile(keyFile, "--tls-key");
  return { mode: "files", certFile, keyFile };
}

function allowedNetworksFrom(value: string | undefined): AllowedNetworks {
  try {
    return parseAllowedNetworks(value);
  } catch (err) {
    throw new UserError((err as Error).message);
  }
}

function waveModelsFrom(value: string | undefined): string[] {
  const parsed = parseWaveModels(value);
  if ("error" in parsed) throw new UserError(`SURFCAST_WAVE_MODELS ${parsed.error}`);
  return parsed.models;
}

/** ERA5 reaches back to 1940: more years than that are not there to ask for. */
const MAX_CLIMATE_YEARS = 80;

function climateYearsFrom(value: string | undefined): number {
  const years = intFrom(value, DEFAULT_CLIMATE_YEARS, "SURFCAST_CLIMATE_YEARS");
  if (years < 1 || years > MAX_CLIMATE_YEARS) throw new UserError(`SURFCAST_CLIMATE_YEARS must be between 1 and ${MAX_CLIMATE_YEARS}, got "${value}"`);
  return years;
}

function scopeFrom(value: string | undefined, name: string): RefreshScope {
  if (value === undefined || value === "") return "requested";
  if (!(REFRESH_SCOPES as readonly string[]).includes(value)) throw new UserError(`${name} must be all or requested, got "${value}"`);
  return value as RefreshScope;
}

/** An http(s) base URL from its flag, else its environment variable, else `fallback`; without a trailing slash. */
function httpUrlFrom(flag: string | undefined, flagName: string, envValue: string | undefined, envName: string, fallback: string): string {
  const [value, name] = flag !== undefined ? [flag, flagName] : [envValue || fallback, envName];
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) throw new UserError(`${name} must be an http:// or https:// URL, got "${value}"`);
  return value.replace(/\/+$/, "");
}

/** A service URL from its flag, else its environment variable, checked against `protocols`. */
function serviceUrlFrom(flag: string | undefined, flagName: string, envValue: string | undefined, envName: string, protocols: readonly string[]): string | undefined {
  return flag !== undefined ? serviceUrl(flag, flagName, protocols) : serviceUrl(envValue, envName, protocols);
}

export function loadConfig(flags: Partial<{ dataDir: string; port: number; host: string; scheduler: boolean; console: boolean; demo: boolean; refreshScope: string; databaseUrl: string; redisUrl: string; ndbcUrl: string } & TlsFlags> = {}, env: Env = process.env): Config {
  const batchSize = intFrom(env.SURFCAST_OPEN_METEO_BATCH_SIZE, DEFAULT_BATCH_SIZE, "SURFCAST_OPEN_METEO_BATCH_SIZE");
  if (batchSize < 1 || batchSize > 1000) throw new UserError("SURFCAST_OPEN_METEO_BATCH_SIZE must be between 1 and 1000");
  const level = (env.SURFCAST_LOG_LEVEL ?? "info") as Config["logLevel"];
  const port = flags.port ?? portFrom(env.PORT, 8080, "PORT");
  const databaseUrl = serviceUrlFrom(flags.databaseUrl, "--database-url", env.SURFCAST_DATABASE_URL, "SURFCAST_DATABASE_URL", DATABASE_URL_PROTOCOLS);
  const tls = tlsFrom(flags, env);
  const publicUrl = publicUrlFrom(env.SURFCAST_PUBLIC_URL, port, tls);
  return {
    dataDir: resolve(flags.dataDir ?? env.SURFCAST_DATA_DIR ?? (flags.demo ? "./var-demo" : "./var")),
    port,
    // A server that gets its own certificates answers the internet itself: every interface unless told otherwise.
    host: flags.host ?? (env.HOST || (tls.mode === "acme" ? "0.0.0.0" : "127.0.0.1")),
    scheduler: flags.scheduler ?? env.SURFCAST_SCHEDULER !== "off",
    openMeteo: {
      marineUrl: (env.SURFCAST_OPEN_METEO_MARINE_URL ?? "https://marine-api.open-meteo.com").replace(/\/+$/, ""),
      forecastUrl: (env.SURFCAST_OPEN_METEO_FORECAST_URL ?? "https://api.open-meteo.com").replace(/\/+$/, ""),
      apiKey: env.SURFCAST_OPEN_METEO_API_KEY || undefined,
      batchSize,
      timeoutMs: intFrom(env.SURFCAST_OPEN_METEO_TIMEOUT_MS, 30_000, "SURFCAST_OPEN_METEO_TIMEOUT_MS"),
      retries: intFrom(env.SURFCAST_OPEN_METEO_RETRIES, 3, "SURFCAST_OPEN_METEO_RETRIES"),
      waveModels: waveModelsFrom(env.SURFCAST_WAVE_MODELS),
    },
    refreshGiveUpAfter: Math.max(1, intFrom(env.SURFCAST_REFRESH_GIVE_UP_AFTER, 3, "SURFCAST_REFRESH_GIVE_UP_AFTER")),
    refreshCron: list(env.SURFCAST_REFRESH_CRON, ["0 1 * * *", "0 13 * * *"], ";"),
    refreshScope: flags.refreshScope !== undefined ? scopeFrom(flags.refreshScope, "--refresh-scope") : scopeFrom(env.SURFCAST_REFRESH_SCOPE, "SURFCAST_REFRESH_SCOPE"),
    mcpAllowedOrigins: list(env.SURFCAST_MCP_ALLOWED_ORIGINS, []),
    allowedHosts: [...list(env.SURFCAST_ALLOWED_HOSTS, []), new URL(publicUrl).hostname, ...(tls.mode === "acme" ? tls.domains : [])],
    logLevel: ["debug", "info", "warn", "error"].includes(level) ? level : "info",
    console: flags.console ?? env.SURFCAST_CONSOLE !== "off",
    publicUrl,
    publicUrlSet: (env.SURFCAST_PUBLIC_URL ?? "").trim() !== "",
    smtpUrl: env.SURFCAST_SMTP_URL || undefined,
    smtpFrom: env.SURFCAST_SMTP_FROM || "Surfcast <surfcast@localhost>",
    metrics: { enabled: env.SURFCAST_METRICS === "on", port: portFrom(env.SURFCAST_METRICS_PORT, 9464, "SURFCAST_METRICS_PORT") },
    demo: flags.demo === true,
    trustProxy: parseTrustedProxies(env.SURFCAST_TRUST_PROXY),
    memoryTargetMb: intFrom(env.SURFCAST_MEMORY_TARGET_MB, DEFAULT_MEMORY_TARGET_MB, "SURFCAST_MEMORY_TARGET_MB"),
    idleReleaseMs: 1000 * intFrom(env.SURFCAST_IDLE_RELEASE_S, DEFAULT_IDLE_RELEASE_S, "SURFCAST_IDLE_RELEASE_S"),
    cacheMb: intFrom(env.SURFCAST_CACHE_MB, DEFAULT_CACHE_MB, "SURFCAST_CACHE_MB"),
    databaseUrl,
    redisUrl: serviceUrlFrom(flags.redisUrl, "--redis-url", env.SURFCAST_REDIS_URL, "SURFCAST_REDIS_URL", REDIS_URL_PROTOCOLS),
    webhookAllowedNetworks: allowedNetworksFrom(env.SURFCAST_WEBHOOK_ALLOWED_NETWORKS),
    observations: {
      enabled: env.SURFCAST_OBSERVATIONS !== "off",
      ndbcUrl: httpUrlFrom(flags.ndbcUrl, "--ndbc-url", env.SURFCAST_NDBC_URL, "SURFCAST_NDBC_URL", DEFAULT_NDBC_URL),
      buoyRadiusKm: Math.max(1, intFrom(env.SURFCAST_BUOY_RADIUS_KM, DEFAULT_BUOY_RADIUS_KM, "SURFCAST_BUOY_RADIUS_KM")),
      biasCorrection: env.SURFCAST_BIAS_CORRECTION === "on",
    },
    climate: {
      archiveUrl: (env.SURFCAST_OPEN_METEO_ARCHIVE_URL ?? DEFAULT_ARCHIVE_URL).replace(/\/+$/, ""),
      years: climateYearsFrom(env.SURFCAST_CLIMATE_YEARS),
    },
    tls,
  };
}
