/**
 * Demo mode through the compiled binary: `serve --demo` with an upstream that does not answer (no network used)
 * serves forecasts made inside the binary, labelled as demo data in the attribution, the responses, the logs and
 * /healthz?verbose=1; a demo data directory and a real one never take each other's mode. The synthetic upstream
 * itself is checked in-process: Open-Meteo's format (through the real parser), deterministic per place and hour.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { tempDir } from "../support/env";
import { cli, cliAsync, createKey, startServer, type RunningServer } from "../support/binary";
import { apiFetch } from "../support/http";
import { DEMO_ATTRIBUTION, demoFetch } from "../../src/forecast/demo";
import { MARINE_HOURLY, FORECAST_HOURLY, parseResponse, requestParams } from "../../src/forecast/openmeteo";

let server: RunningServer;
let key: string;
const SPOTS = ["supertubos", "pipeline"];

beforeAll(async () => {
  const dir = tempDir("demo");
  key = createKey(dir, "demo@example.com");
  // The startup refresh of every spot is left out (--no-scheduler); `refresh --spots` keeps the test fast.
  server = await startServer({ dataDir: dir, args: ["--no-scheduler", "--demo"] });
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

describe("serve --demo", () => {
  test("forecasts within seconds, no upstream, labelled as demo data everywhere", async () => {
    expect(server.output()).toContain("DEMO MODE");
    const refresh = await cliAsync(server.dataDir, ["refresh", "--spots", SPOTS.join(",")]);
    expect(refresh.code).toBe(0);
    expect(refresh.stderr).toContain("DEMO data");
    expect(refresh.stdout).toContain("2 ok, 0 failed");

    const res = await apiFetch(`${server.url}/v1/spots/supertubos/forecast?days=2`, { headers: { "X-API-Key": key } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { attribution: string; demo?: boolean; hours: { waveHeight: number; wavePeriod: number; windSpeed: number; waterTemperature: number; tide: unknown }[] };
    expect(body.attribution).toBe(DEMO_ATTRIBUTION);
    expect(body.demo).toBe(true);
    expect(body.hours.length).toBeGreaterThanOrEqual(24);
    for (const h of body.hours) {
      expect(h.waveHeight).toBeGreaterThan(0.1);
      expect(h.waveHeight).toBeLessThan(8);
      expect(h.wavePeriod).toBeGreaterThan(4);
      expect(h.wavePeriod).toBeLessThan(22);
      expect(h.windSpeed).toBeLessThan(60);
      expect(h.waterTemperature).toBeGreaterThan(5);
    }
    // The wind has a daily rhythm (the sea breeze): the day's speeds are not flat.
    const speeds = body.hours.slice(0, 24).map((h) => h.windSpeed);
    expect(Math.max(...speeds) - Math.min(...speeds)).toBeGreaterThan(5);

    const now = await apiFetch(`${server.url}/v1/spots/pipeline/now`, { headers: { "X-API-Key": key } });
    expect(now.status).toBe(200);
    expect(((await now.json()) as { attribution: string }).attribution).toBe(DEMO_ATTRIBUTION);

    const status = (await (await fetch(`${server.url}/healthz?verbose=1`)).json()) as { demo: boolean; forecasts: { withForecast: number } };
    expect(status.demo).toBe(true);
    expect(status.forecasts.withForecast).toBe(2);
  }, 20_000);

  test("a demo directory is never served as real, nor a real one as demo: one line, exit 2", async () => {
    const asReal = cli(server.dataDir, ["serve", "--port", "0", "--no-scheduler"]);
    expect(asReal.code).toBe(2);
    expect(asReal.stderr.trim().split("\n")).toHaveLength(1);
    expect(asReal.stderr).toContain("holds demo data");

    const realDir = tempDir("demo-real");
    const real = await startServer({ dataDir: realDir });
    expect(await real.stop()).toBe(0);
    const asDemo = cli(realDir, ["serve", "--demo", "--port", "0", "--no-scheduler"]);
    expect(asDemo.code).toBe(2);
    expect(asDemo.stderr.trim().split("\n")).toHaveLength(1);
    expect(asDemo.stderr).toContain("holds real forecasts");
  }, 20_000);
});

describe("the synthetic upstream", () => {
  const points = [
    { lat: 39.344, lng: -9.363 },
    { lat: -8.815, lng: 115.0867 },
  ];
  const get = async (endpoint: "marine" | "forecast", timeformat: "iso8601" | "unixtime", usePost = false) => {
    const params = requestParams(endpoint, points, timeformat);
    const url = `http://demo.invalid/v1/${endpoint}`;
    const res = usePost ? await demoFetch(url, { method: "POST", body: params.toString() }) : await demoFetch(`${url}?${params}`);
    return parseResponse(await res.text(), endpoint, points.length);
  };

  test("answers every requested variable in Open-Meteo's format, GET or POST, both time formats", async () => {
    for (const timeformat of ["iso8601", "unixtime"] as const) {
      const [marine, forecast] = [await get("marine", timeformat), await get("forecast", timeformat, true)];
      expect(Object.keys(marine[0]!.hourly.values).sort()).toEqual([...MARINE_HOURLY].sort());
      expect(Object.keys(forecast[1]!.hourly.values).sort()).toEqual([...FORECAST_HOURLY].sort());
      expect(marine[0]!.hourly.time).toHaveLength(168);
      expect(forecast[0]!.daily!.date).toHaveLength(7);
      expect(forecast[0]!.daily!.sunrise.every((t) => t !== null)).toBe(true);
      expect(Object.values(marine[1]!.hourly.values).every((s) => s.every((v) => typeof v === "number"))).toBe(true);
    }
  });

  test("one value per model grid cell: a spot's values do not depend on which spot of its cell a batch sent", async () => {
    for (const endpoint of ["marine", "forecast"] as const) {
      // Both points lie in the same 1/12° marine and 1/10° weather cell (Peniche), as two spots of one batch do.
      const one = [{ lat: 39.3541, lng: -9.3801 }];
      const other = [{ lat: 39.3512, lng: -9.3727 }];
      const answer = async (pts: { lat: number; lng: number }[]) =>
        parseResponse(await (await demoFetch(`http://demo.invalid/v1/${endpoint}?${requestParams(endpoint, pts, "unixtime")}`)).text(), endpoint, 1)[0]!;
      expect(await answer(one)).toEqual(await answer(other));
    }
  });

  test("deterministic per place and hour; places differ; sea level rises and falls like a tide", async () => {
    const [a, b] = [await get("marine", "iso8601"), await get("marine", "iso8601")];
    expect(a).toEqual(b);
    expect(a[0]!.hourly.values.swell_wave_height).not.toEqual(a[1]!.hourly.values.swell_wave_height);
    const level = a[0]!.hourly.values.sea_level_height_msl! as number[];
    const turns = level.slice(1, -1).filter((v, i) => (v - level[i]!) * (level[i + 2]! - v) < 0).length;
    expect(turns).toBeGreaterThanOrEqual(20); // ~4 high and low waters a day over 7 days (a flat top at 1 cm hides some)
    expect(turns).toBeLessThanOrEqual(32);
  });
});
