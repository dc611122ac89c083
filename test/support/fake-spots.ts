/** A stand-in for the catalog service, for tests of other domains: `find`, `get` and `all` over a list (which tests may extend). */
import { notFound } from "../../src/core/errors";
import type { SpotService } from "../../src/spots/service";
import type { Spot } from "../../src/spots/types";
import { CATALOG_PATH } from "./env";

export function fakeSpotService(spots: Spot[]): SpotService {
  const find = (id: string) => spots.find((s) => s.id === id);
  return {
    find,
    get(id: string) {
      const spot = find(id);
      if (!spot) throw notFound(`No spot with id '${id}'.`);
      return spot;
    },
    all: () => spots,
  } as unknown as SpotService;
}

/** A record of the default catalog file (../shared), as far as the tide tests read it. */
export interface CatalogRecord {
  name: string;
  country: string;
  lat: string;
  lng: string;
}

export async function catalogRecords(): Promise<CatalogRecord[]> {
  return (await Bun.file(CATALOG_PATH).json()) as CatalogRecord[];
}

/** A catalog record as the `i`-th spot of a small test catalog. */
export function catalogSpot(r: CatalogRecord, i: number): Spot {
  const [country = "", ...rest] = r.country.split(",").map((s) => s.trim());
  return { id: `spot-${i}`, hexId: i.toString(16).padStart(16, "0"), name: r.name, country, region: rest.join(", ") || null, lat: Number(r.lat), lng: Number(r.lng), facing: null, tideless: null, timezone: "UTC" };
}
