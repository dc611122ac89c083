/** A stand-in for the catalog service, for tests of other domains: `find`, `get` and `all` over a list (which tests may extend). */
import { notFound } from "../../src/core/errors";
import type { SpotService } from "../../src/spots/service";
import type { Spot } from "../../src/spots/types";

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
