/**
 * `tide` in GET /v1/spots/{id}/now is null only at a tideless spot, whatever serves the tide: through the compiled
 * binary in the refresh scope `requested`, each spot's first /now fetching its forecast and sea level from the fake
 * Open-Meteo. The sea level reaches the binary through a proxy that blanks it up to the current hour, as early in a
 * model window: no stored model extreme comes before the current minute.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createKey, startServer, type RunningServer } from "../support/binary";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { apiFetch } from "../support/http";
import type { NowResponse } from "../../src/now/types";
import type { TidesResponse } from "../../src/tides/types";
import type { Spot } from "../../src/spots/types";

type Location = { hourly: Record<string, (number | string | null)[]> & { time: (string | number)[] } };

let fake: FakeOpenMeteo;
let proxy: ReturnType<typeof Bun.serve>;
let server: RunningServer;
let key: string;
/** Sea-level columns the proxy blanked: the test is only meaningful when it blanked some. */
let blanked = 0;

/**
 * The upstream's sea level (one column per wave model asked for: `sea_level_height_msl_<model>`), blanked up to the
 * end of the current hour: the window's first turn is ahead.
 */
function blankSeaLevelUntilNextHour(location: Location): void {
  const until = Math.floor(Date.now() / 3_600_000) * 3_600_000 + 3_600_000;
  for (const [name, levels] of Object.entries(location.hourly)) {
    if (!name.startsWith("sea_level_height_msl")) continue;
    blanked++;
    location.hourly.time.forEach((t, i) => {
      const at = typeof t === "number" ? t * 1000 : Date.parse(`${t}:00Z`);
      if (at <= until) levels[i] = null;
    });
  }
}

beforeAll(async () => {
  fake = await startFakeOpenMeteo({ firstDay: new Date().toISOString().slice(0, 10) });
  proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const upstream = await fetch(fake.url + url.pathname + url.search, { method: req.method, headers: req.headers, body: req.method === "POST" ? await req.text() : undefined });
      if (url.pathname !== "/v1/marine" || upstream.status !== 200) return upstream;
      const body = (await upstream.json()) as Location | Location[];
      for (const location of Array.isArray(body) ? body : [body]) blankSeaLevelUntilNextHour(location);
      return Response.json(body);
    },
  });
  const upstream = `http://127.0.0.1:${proxy.port}`;
  server = await startServer({
    args: [],
    env: { SURFCAST_OPEN_METEO_MARINE_URL: upstream, SURFCAST_OPEN_METEO_FORECAST_URL: upstream, SURFCAST_OPEN_METEO_RETRIES: "0", SURFCAST_REFRESH_SCOPE: "requested" },
  });
  key = createKey(server.dataDir);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  proxy?.stop(true);
  await fake?.close();
});

async function get<T>(path: string): Promise<T> {
  const res = await apiFetch(server.url + path, { headers: { "X-API-Key": key } });
  expect([path, res.status]).toEqual([path, 200]);
  return (await res.json()) as T;
}

async function spotNamed(name: string, country: string): Promise<Spot> {
  const found = (await get<Spot[]>(`/v1/spots?q=${encodeURIComponent(name)}&limit=50`)).find((s) => s.name === name && s.country === country);
  if (!found) throw new Error(`no spot ${name} in ${country}`);
  return found;
}

test("a tide at every tidal spot (a station's, the sea-level model's early in its window), null only at a tideless one", async () => {
  const cases: { source: "station" | "model" | "tideless"; spot: Spot }[] = [
    { source: "station", spot: await spotNamed("Supertubos", "Portugal") },
    { source: "model", spot: await spotNamed("Anchor point", "Morocco") },
    { source: "tideless", spot: await spotNamed("Sheboygan", "USA") },
  ];
  for (const { source, spot } of cases) {
    const now = await get<NowResponse>(`/v1/spots/${spot.id}/now`);
    expect(blanked).toBeGreaterThan(0);
    expect([source, now.conditions !== null]).toEqual([source, true]);
    const tides = await get<TidesResponse>(`/v1/spots/${spot.id}/tides?days=2`);
    if (source === "tideless") {
      expect(tides.tideless).toBe(true);
      expect(now.tide).toBeNull();
      continue;
    }
    expect([source, tides.tideless, tides.source?.type]).toEqual([source, false, source]);
    expect(tides.extremes.length).toBeGreaterThan(0);
    expect([source, now.tide]).toEqual([source, expect.objectContaining({ state: expect.stringMatching(/^(rising|falling)$/), height: expect.any(Number) })]);
    // The next turn is the first extreme /tides lists, and the height lies between the turns around it.
    const next = tides.extremes[0]!;
    expect(now.tide!.nextEvent).toMatchObject({ type: next.type, time: next.time });
    expect(now.tide!.state).toBe(next.type === "high" ? "rising" : "falling");
    if (source === "model") {
      // Early in the window: no stored turn before now, the case that answered null.
      expect(Date.parse(next.time)).toBeGreaterThan(Date.now());
      const [low, high] = [Math.min(...tides.extremes.slice(0, 3).map((e) => e.height)), Math.max(...tides.extremes.slice(0, 3).map((e) => e.height))];
      expect(now.tide!.height).toBeGreaterThanOrEqual(low);
      expect(now.tide!.height).toBeLessThanOrEqual(high);
    }
  }
}, 60_000);
