/**
 * NDBC asked once among servers: on a shared database, of the servers that find a buoy's stored files (or the station
 * table) due, one fetches them under the source's lease (cluster.ts) while the others wait and read what it stored.
 * On one box each fetch just runs. The observations fetcher takes this as its `turn`.
 */
import type { App } from "../app";
import type { FetchTurn } from "../observations/fetcher";
import { onceAmongServers } from "./cluster";

export function observationFetchTurn(app: App, signal: AbortSignal): FetchTurn {
  return async (source, slot, fetchAndStore) => {
    await onceAmongServers(app, `observations ${source}`, slot, fetchAndStore, signal);
  };
}
