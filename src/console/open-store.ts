/**
 * The console's store on the app's database. The console sits above the composition root (docs/architecture.md), so
 * it opens its own store here rather than taking one from `App`.
 */
import type { App } from "../app";
import { postgresConsoleStore } from "./postgres-store";
import { sqliteConsoleStore } from "./sqlite-store";
import type { ConsoleStore } from "./store";

export function openConsoleStore(engine: App["engine"]): ConsoleStore {
  return engine.kind === "sqlite" ? sqliteConsoleStore(engine.db) : postgresConsoleStore(engine.db);
}
