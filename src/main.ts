/**
 * surfcast — entry point of the single executable: argument parsing and dispatch only.
 */
import { existsSync, rmSync } from "node:fs";
import { loadConfig } from "./config";
import { openApp } from "./app";
import { BUSY_TIMEOUT_MS, databaseFailure, databasePath } from "./db";
import { systemClock } from "./core/clock";
import { UserError } from "./core/errors";
import { cliWording } from "./cli/wording";
import { setLogLevel } from "./core/log";
import { ACCOUNTS_HELP, runAccounts } from "./cli/accounts";
import { ADMINS_HELP, runAdmins } from "./cli/admins";
import { KEYS_HELP, runKeys } from "./cli/keys";
import { REFRESH_HELP, runRefresh } from "./cli/refresh";
import { SERVE_HELP, announceServing, parseServeArgs } from "./cli/serve";
import { ANNOUNCED_URL, assertPortFree, runServe } from "./server/serve";
import { observationFetchTurn } from "./server/observation-fetches";
import { SPOTS_HELP, runSpots } from "./cli/spots";
import { editDistance, extractGlobalOptions } from "./cli/args";
import { STATUS_HELP, runStatus } from "./cli/status";
import { BACKUP_HELP, runBackup } from "./cli/backup";
import { HEALTHCHECK_HELP, runHealthcheck } from "./cli/healthcheck";
import { EMBEDS_HELP, runEmbeds } from "./cli/embeds";
import { MIGRATE_HELP, runMigrate } from "./cli/migrate";
import { ALERTS_HELP, runAlerts } from "./cli/alerts";
import { claimDataMode, type DataPlace } from "./forecast/demo";
import { maskPassword } from "./core/service-url";

const VERSION = "1.0.0";

const HELP = `surfcast ${VERSION} — a self-hosted surf spot, forecast and tide API in one executable

Usage: surfcast [--data-dir DIR] COMMAND [options]

Commands:
  serve                 run the API server (/v1, /mcp, /openapi.json, /healthz);
                        serve --demo: synthetic forecasts, no internet or Open-Meteo key needed
  accounts              create, invite, disable, enable and list accounts
  admins create EMAIL   an operator sign-in for the developer console (/console)
  keys                  create, revoke and list API keys
  embeds                forecast pictures for a shop's web page and TV: create, list, revoke
  alerts                "tell me when it's on": condition alerts by webhook or e-mail; create, list, delete, test, deliveries
  refresh               fetch fresh forecasts from Open-Meteo now
  spots import FILE     import spots from JSON, GeoJSON or CSV
  spots check           report suspicious catalog records (far from a coast, duplicates, …)
  status                forecast ages, last and next refresh, tide window, database size
  backup FILE           a consistent copy of the database, while the server runs
  healthcheck           exit 0 if the local server answers /healthz (for container health checks)
  migrate               copy the data directory into the PostgreSQL database (--database-url), checked row by row

Global options:
  --data-dir DIR        where the database lives (env SURFCAST_DATA_DIR, default ./var)
  --database-url URL    postgres://user:password@host:port/database shared by several servers
                        (env SURFCAST_DATABASE_URL, better than the flag: a flag shows in ps); see docs/postgres.md
  --redis-url URL       redis://host:port (or rediss://) for counters shared by several servers (env SURFCAST_REDIS_URL)
  -h, --help            show help (also after any command: surfcast keys --help)
  -v, --version         print the version

Start here: surfcast serve        (no Open-Meteo call until a spot's forecast is asked for; then 2 for that spot)
            surfcast accounts create you@example.com --plan starter
            surfcast keys create you@example.com --name laptop
Offline:    surfcast serve --demo (synthetic forecasts in ./var-demo: give the commands --data-dir ./var-demo)
Or let customers make their own keys: surfcast accounts invite them@example.com --plan starter`;

const COMMAND_HELP: Record<string, string> = { serve: SERVE_HELP, accounts: ACCOUNTS_HELP, admins: ADMINS_HELP, keys: KEYS_HELP, refresh: REFRESH_HELP, spots: SPOTS_HELP, status: STATUS_HELP, backup: BACKUP_HELP, healthcheck: HEALTHCHECK_HELP, embeds: EMBEDS_HELP, alerts: ALERTS_HELP, migrate: MIGRATE_HELP };

/** Commands that print links: without SURFCAST_PUBLIC_URL they use the address the server last answered at. */
const LINK_COMMANDS = ["accounts invite", "admins create", "embeds create", "embeds list", "alerts create", "alerts test"];

/** The commands that start an install may create its data directory; the others refuse a missing one. */
function mayCreate(command: string, args: string[]): boolean {
  const sub = args.find((a) => !a.startsWith("-"));
  return command === "serve" || (command === "accounts" && (sub === "create" || sub === "invite")) || (command === "admins" && sub === "create") || (command === "spots" && sub === "import");
}

async function main(argv: string[]): Promise<number> {
  const { global, rest } = extractGlobalOptions(argv);
  const [command, ...args] = rest;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    console.log(HELP);
    return 0;
  }
  if (command === "--version" || command === "-v" || command === "version") {
    console.log(VERSION);
    return 0;
  }
  const help = COMMAND_HELP[command];
  if (!help) {
    const near = Object.keys(COMMAND_HELP).find((name) => editDistance(command, name) <= 2);
    throw new UserError(`unknown command "${command}"${near ? ` (did you mean ${near}?)` : ""} (see surfcast --help)`);
  }
  if (args.includes("--help") || args.includes("-h")) {
    console.log(help);
    return 0;
  }

  if (command === "healthcheck") return runHealthcheck(args);
  const serveFlags = command === "serve" ? parseServeArgs(args) : {};
  const config = loadConfig({ ...global, ...serveFlags });
  setLogLevel(config.logLevel);
  // Reads the data directory without opening it as the app does: opening migrates, and migrate changes nothing there.
  if (command === "migrate") return await runMigrate(config, args);
  // Several servers on one database count each key's quota and burst together, which only a shared counter can do.
  if (command === "serve" && config.databaseUrl !== undefined && config.redisUrl === undefined) {
    throw new UserError("serve on PostgreSQL (--database-url) needs Redis too (--redis-url or SURFCAST_REDIS_URL): the servers sharing the database count quotas and bursts there; for one server without Redis, unset the database URL and serve from --data-dir");
  }
  // Redis counts the requests of servers on one database; a single server on its data directory counts in memory.
  if (config.redisUrl !== undefined && config.databaseUrl === undefined) {
    throw new UserError("--redis-url (SURFCAST_REDIS_URL) is for several servers sharing a PostgreSQL database: set --database-url (SURFCAST_DATABASE_URL) too, or unset it to run on --data-dir");
  }
  if (command === "serve") assertPortFree(config);
  const newInstall = !existsSync(config.dataDir);
  const dataPlace: DataPlace = config.databaseUrl === undefined ? { kind: "directory", path: config.dataDir } : { kind: "database", url: maskPassword(config.databaseUrl) };
  const app = await openApp(config, systemClock, command === "serve" ? BUSY_TIMEOUT_MS.server : BUSY_TIMEOUT_MS.command, mayCreate(command, args), observationFetchTurn);
  try {
    // Demo and real data never mix: serve claims the directory's mode, and refresh follows it (forecast/demo.ts).
    if (command === "serve") await claimDataMode(app.stores.forecasts, config.demo, dataPlace);
    else if (command === "refresh") app.config.demo = (await app.stores.forecasts.dataMode()) === "demo";
  } catch (err) {
    await app.close();
    throw err;
  }
  if (LINK_COMMANDS.includes(`${command} ${args.find((a) => !a.startsWith("-"))}`) && !config.publicUrlSet) {
    const announced = await app.stores.meta.read(ANNOUNCED_URL);
    if (announced !== null) config.publicUrl = announced;
    else console.error(`surfcast: warning: SURFCAST_PUBLIC_URL is not set and no server has run on ${dataPlace.kind === "directory" ? dataPlace.path : "this database"} yet: links start with ${config.publicUrl}`);
  }
  if (command === "serve") {
    try {
      return await runServe(app, (address) => announceServing(address, dataPlace.kind === "directory" ? dataPlace.path : dataPlace.url, config.demo));
    } catch (err) {
      // A first start that failed (a busy metrics port) leaves no directory behind to confuse the next one.
      if (newInstall) rmSync(config.dataDir, { recursive: true, force: true });
      throw err;
    }
  }
  try {
    switch (command) {
      case "accounts":
        await runAccounts(app, args);
        return 0;
      case "admins":
        await runAdmins(app, args);
        return 0;
      case "keys":
        await runKeys(app, args);
        return 0;
      case "embeds":
        await runEmbeds(app, args);
        return 0;
      case "alerts":
        await runAlerts(app.alerts, args);
        return 0;
      case "refresh":
        return await runRefresh(app, args);
      case "status":
        await runStatus(app, args);
        return 0;
      case "backup":
        runBackup(app, args);
        return 0;
      default:
        return await runSpots(app, args);
    }
  } catch (err) {
    throw databaseFailure(err, databasePath(config.dataDir));
  } finally {
    await app.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof UserError) console.error(`surfcast: ${cliWording(err)}`);
    else console.error(`surfcast: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(err instanceof UserError ? 2 : 1);
  },
);
