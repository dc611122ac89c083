/**
 * The spot catalog service: search, nearby and get over an in-memory index of the `spots` table.
 * STUB — filled in by the spot catalog issue (#3).
 */
import type { Db } from "../db";
import { notFound } from "../core/errors";
import type { NearbyParams, SearchParams } from "../core/params";
import type { Spot, SpotWithDistance } from "./types";

export class SpotService {
  private constructor(private readonly db: Db) {}

  /** Opens the catalog; seeds the database from the embedded default catalog when it has no spots yet. */
  static open(db: Db): SpotService {
    return new SpotService(db);
  }

  search(_p: SearchParams): Spot[] {
    return [];
  }

  nearby(_p: NearbyParams): SpotWithDistance[] {
    return [];
  }

  /** By slug or 16-hex id; throws `not_found`. */
  get(id: string): Spot {
    throw notFound(`No spot with id '${id}'.`);
  }

  all(): readonly Spot[] {
    return [];
  }
}
