/**
 * The tide station database (@neaps/tide-database): station search and the station rule's inputs. Importing this
 * module decodes the embedded database (~300 ms, ~100 MB of heap), so only the station worker (./station-worker.ts)
 * imports it; the server and the commands predict from stored station records (./record.ts).
 */
import { near, stationsById, type Station } from "@neaps/tide-database";
import type { Station as PredictorStation } from "@neaps/tide-predictor";
import { datumOf, recordOf, springRange, type StationRecord } from "./record";
import { stationFor, type RuleInput, type StationCandidate, type StationChoice, type StationSource } from "./stations";

/** Tide stations we may use: tide (not current) stations whose licence allows commercial use (the API is sold). */
function usable(station: Station): boolean {
  return station.kind === "tide" && station.license.commercial_use;
}

const records = new Map<string, StationRecord>();
const ranges = new Map<string, number>();

/** A station's record, built once (its getters decode constituents from the database on every read). */
export function stationRecord(stationId: string): StationRecord {
  let record = records.get(stationId);
  if (!record) {
    const station = stationsById.get(stationId);
    if (!station) throw new Error(`unknown tide station ${stationId}`);
    // The database's Station and the predictor's Station type are the same record, declared apart.
    records.set(stationId, (record = recordOf(station as unknown as PredictorStation)));
  }
  return record;
}

export function stationCount(): number {
  let n = 0;
  for (const station of stationsById.values()) if (usable(station)) n++;
  return n;
}

/** The `limit` usable tide stations closest to a position, closest first, at any distance. */
function stationsNear(lat: number, lng: number, limit: number): StationCandidate[] {
  return near({ lat, lng, maxResults: limit, filter: usable }).map(([station, distanceKm]) => ({
    id: station.id,
    name: station.name,
    type: station.type,
    source: station.source.name,
    distanceKm,
    datum: datumOf(stationRecord(station.id)),
  }));
}

/** A station's spring range over the reference fortnight, cached. */
function cachedRange(stationId: string): number {
  let range = ranges.get(stationId);
  if (range === undefined) ranges.set(stationId, (range = springRange(stationRecord(stationId))));
  return range;
}

const database: StationSource = { stationsNear, springRange: cachedRange };

/** The station rule (./stations.ts) for one spot, with the chosen station's record. */
export function choose(spot: RuleInput, override: boolean | null): { choice: StationChoice; record: StationRecord | null } {
  const choice = stationFor(spot, override, database);
  return { choice, record: choice.station ? stationRecord(choice.station.id) : null };
}
