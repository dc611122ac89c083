/**
 * docs/integrations.md, block by block, against the compiled binary with forecasts refreshed from the fake
 * Open-Meteo: the Home Assistant sensors (JSONPath attributes and the Jinja subset their templates use), the
 * Grafana Infinity query, the `curl | jq` status line (run for real when jq and curl are installed, on a tidal
 * and a tideless spot and before a forecast) and the surf alert script posting to a webhook receiver on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createKey, installDir, startServer, type RunningServer } from "../support/binary";
import { BINARY, ROOT } from "../support/env";
import { apiFetch } from "../support/http";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import type { NowResponse } from "../../src/now/types";
import type { ForecastResponse } from "../../src/forecast/types";

type Json = Record<string, any>;

const PLACEHOLDER_ORIGIN = "http://surfcast.local:8080";
const SPOT = "supertubos";
const TIDELESS = "sheboygan";

/** The fenced blocks of the page, by the name after their language (```yaml home-assistant). */
const BLOCKS = Object.fromEntries(
  [...readFileSync(join(ROOT, "docs/integrations.md"), "utf8").matchAll(/^```\w+ ([\w-]+)\n([\s\S]*?)^```$/gm)].map((m) => [m[1]!, m[2]!]),
);

let fake: FakeOpenMeteo;
let server: RunningServer;
let key: string;

beforeAll(async () => {
  fake = await startFakeOpenMeteo({ firstDay: new Date().toISOString().slice(0, 10) });
  const dir = installDir("integrations");
  const env = { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url };
  // Asynchronously: the fake upstream answers from this process.
  const refresh = Bun.spawn([BINARY, "--data-dir", dir, "refresh", "--spots", `${SPOT},${TIDELESS}`], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  expect(await refresh.exited).toBe(0);
  key = createKey(dir, "integrations@example.com", "scale");
  server = await startServer({ dataDir: dir, env });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

const live = (text: string) => text.replaceAll(PLACEHOLDER_ORIGIN, server.url);

async function getJson<T = Json>(url: string): Promise<T> {
  const res = await apiFetch(url, { headers: { "X-API-Key": key } });
  expect(res.status).toBe(200);
  return (await res.json()) as T;
}

/** `$.a.b` (the JSONPath form Home Assistant's json_attributes_path uses here). */
function jsonPath(root: unknown, path: string): unknown {
  expect(path).toMatch(/^\$(\.\w+)*$/);
  return path.split(".").slice(1).reduce<any>((node, key) => node?.[key], root);
}

/** `value_json.a.b` → the value; `none` → null; `'text'` → "text". */
function jinjaValue(expr: string, valueJson: unknown): unknown {
  const e = expr.trim();
  if (e === "none") return null;
  const literal = /^'([^']*)'$/.exec(e);
  if (literal) return literal[1];
  expect(e).toMatch(/^value_json(\.\w+)*$/);
  return e.split(".").slice(1).reduce<any>((node, key) => (node === null || node === undefined ? undefined : node[key]), valueJson);
}

/**
 * The Jinja subset the page's templates use: `{{ A }}` and `{{ A if B else C }}`, where each part is a
 * `value_json` path or a literal. Python truthiness for B (null, empty and 0 are false). Fails on anything else,
 * so a template the page grows beyond the subset cannot pass untested.
 */
function renderTemplate(template: string, valueJson: unknown): unknown {
  const m = /^\{\{(.*)\}\}$/.exec(template.trim());
  expect(m).not.toBeNull();
  const conditional = /^(.*) if (.*) else (.*)$/.exec(m![1]!.trim());
  if (!conditional) return jinjaValue(m![1]!, valueJson);
  const test = jinjaValue(conditional[2]!, valueJson);
  const truthy = !(test === null || test === undefined || test === false || test === 0 || test === "" || (typeof test === "object" && Object.keys(test).length === 0));
  return jinjaValue(truthy ? conditional[1]! : conditional[3]!, valueJson);
}

describe("docs/integrations.md against the running binary", () => {
  test("the page has every block the tests read", () => {
    expect(Object.keys(BLOCKS).sort()).toEqual(["alert", "grafana-datasource", "grafana-query", "home-assistant", "status-line"]);
  });

  test("Home Assistant: the resource answers, every json_attributes_path and attribute exists, every template renders its field", async () => {
    const config = Bun.YAML.parse(BLOCKS["home-assistant"]!) as { rest: { resource: string; headers: Record<string, string>; sensor: Json[] }[] };
    const [rest] = config.rest;
    expect(rest!.headers).toHaveProperty("X-API-Key"); // `!secret surfcast_api_key`
    const body = await getJson<NowResponse>(live(rest!.resource));
    expect(body.spot.id).toBe(SPOT);
    expect(rest!.sensor.length).toBe(5);
    for (const sensor of rest!.sensor) {
      if (sensor.json_attributes_path) {
        const attributes = jsonPath(body, sensor.json_attributes_path) as Json;
        expect([sensor.name, typeof attributes]).toEqual([sensor.name, "object"]);
        for (const name of sensor.json_attributes) expect([sensor.name, name, attributes[name] !== undefined && attributes[name] !== null]).toEqual([sensor.name, name, true]);
      }
      const value = renderTemplate(sensor.value_template, body);
      expect([sensor.name, value === null || value === undefined]).toEqual([sensor.name, false]);
      if (sensor.device_class === "timestamp") expect(Number.isFinite(Date.parse(String(value)))).toBe(true);
    }
    // The same templates on a tideless spot: the guards give none (unknown), never a template error.
    const still = await getJson<NowResponse>(live(rest!.resource).replace(`/spots/${SPOT}/`, `/spots/${TIDELESS}/`));
    expect(still.tide).toBeNull();
    const rendered = Object.fromEntries(rest!.sensor.map((s) => [s.name, renderTemplate(s.value_template, still)]));
    expect(rendered["Supertubos next high tide"]).toBeNull();
    expect(rendered["Supertubos tide"]).toBe("none");
    expect(typeof rendered["Supertubos surf"]).toBe("number");
  });

  test("Grafana Infinity: the provisioned header reaches the query's URL; every column selects a value of its type in every row", async () => {
    const provisioning = Bun.YAML.parse(BLOCKS["grafana-datasource"]!) as { datasources: Json[] };
    const [source] = provisioning.datasources;
    const query = JSON.parse(BLOCKS["grafana-query"]!) as Json;
    expect(query.datasource.uid).toBe(source!.uid);
    expect(source!.jsonData.allowedHosts.some((host: string) => query.url.startsWith(host))).toBe(true);
    const header = source!.jsonData.httpHeaderName1 as string;
    const res = await apiFetch(live(query.url), { headers: { [header]: key } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as ForecastResponse;
    const rows = (body as unknown as Json)[query.root_selector] as Json[];
    expect(rows.length).toBeGreaterThan(24);
    for (const row of rows) {
      for (const column of query.columns as { selector: string; type: string }[]) {
        const value = column.selector.split(".").reduce<any>((node, k) => node?.[k], row);
        if (column.type === "timestamp") expect(Number.isFinite(Date.parse(value))).toBe(true);
        else expect([column.selector, typeof value]).toEqual([column.selector, "number"]);
      }
    }
  });

  test("status line: curl | jq prints every field it names, and never `null` at a tideless spot or before a forecast (run when jq and curl are installed)", async () => {
    const command = BLOCKS["status-line"]!.trim();
    const program = /jq -r '(.*)'$/.exec(command)![1]!;
    const url = live(/"(\$SURFCAST_URL[^"]*)"/.exec(command)![1]!.replace("$SURFCAST_URL", PLACEHOLDER_ORIGIN));
    if (!Bun.which("jq") || !Bun.which("curl")) {
      console.warn("SKIPPED: jq or curl is missing; the status line was not run");
      return;
    }
    const jq = (body: unknown) => {
      const run = Bun.spawnSync(["jq", "-r", program], { stdin: Buffer.from(JSON.stringify(body)), stdout: "pipe", stderr: "pipe" });
      expect(run.stderr.toString()).toBe("");
      return run.stdout.toString().trim();
    };
    const body = await getJson<NowResponse>(url);
    expect(jq(body)).toMatch(/^Supertubos [\d.]+m \w+ [1-5]\/5 \| tide [\d.-]+m (rising|falling), (high|low) in \d+ min$/);
    const tideless = await getJson<NowResponse>(url.replace(`/spots/${SPOT}/`, `/spots/${TIDELESS}/`));
    expect(tideless.tide).toBeNull();
    expect(jq(tideless)).toMatch(/^Sheboygan [\d.]+m [\w-]+ [1-5]\/5 \| no tide$/);
    expect(jq({ ...body, conditions: null })).toMatch(/^Supertubos no forecast yet \| tide /);
    for (let attempt = 0; attempt < 3; attempt++) {
      const before = await getJson<NowResponse>(url);
      const run = Bun.spawnSync(["sh", "-c", command], { env: { ...process.env, SURFCAST_URL: server.url, SURFCAST_KEY: key }, stdout: "pipe", stderr: "pipe" });
      const after = await getJson<NowResponse>(url);
      expect(run.stderr.toString()).toBe("");
      expect(run.exitCode).toBe(0);
      if (before.time !== after.time) continue; // a minute turned during the run
      expect(run.stdout.toString().trim()).toBe(jq(before));
      return;
    }
    throw new Error("three minute boundaries in a row");
  });

  test("alert script: posts to the webhook when the rating reaches the threshold, stays quiet below it, fails on a failing webhook", async () => {
    const received: Json[] = [];
    let answer = 204;
    const receiver = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(req) {
        received.push({ method: req.method, type: req.headers.get("content-type"), body: await req.json() });
        return new Response(null, { status: answer });
      },
    });
    try {
      const forecast = await getJson<ForecastResponse>(`${server.url}/v1/spots/${SPOT}/forecast?days=2`);
      const horizon = Date.now() + 24 * 3_600_000;
      // Daylight hours only, by the best windows' rule: the hour's middle between a day's sunrise and sunset.
      const lit = (time: string) =>
        forecast.daily.some((d) => d.sunrise !== null && d.sunset !== null && Date.parse(time) + 1_800_000 >= Date.parse(d.sunrise) && Date.parse(time) + 1_800_000 <= Date.parse(d.sunset));
      const next24 = forecast.hours.filter((h) => Date.parse(h.time) < horizon && lit(h.time));
      expect(next24.length).toBeGreaterThan(0);
      const best = Math.max(...next24.map((h) => h.rating.intermediate));
      const firstBest = next24.find((h) => h.rating.intermediate === best)!;
      const run = (min: number) => {
        const command = BLOCKS.alert!.replaceAll("YOUR_API_KEY", key)
          .replace(/https:\/\/discord\.com\/\S+/, `http://127.0.0.1:${receiver.port}/hook`)
          .replace("--min 4", `--min ${min}`);
        // As pasted in a checkout: Bun is not on the PATH there.
        return Bun.spawn(["sh", "-c", live(command)], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
      };
      const sent = run(best);
      expect(await sent.exited).toBe(0);
      expect(received).toHaveLength(1);
      const message = received[0]!.body.content as string;
      expect(received[0]).toMatchObject({ method: "POST", type: "application/json" });
      expect(received[0]!.body.text).toBe(message);
      expect(message).toStartWith(`Supertubos: intermediate rating ${best}/5 from ${firstBest.time.slice(0, 10)} ${firstBest.time.slice(11, 16)} UTC`);
      expect(await new Response(sent.stdout).text()).toContain("sent:");
      if (best < 5) {
        const quiet = run(best + 1);
        expect(await quiet.exited).toBe(0);
        expect(await new Response(quiet.stdout).text()).toContain("nothing sent");
        expect(received).toHaveLength(1);
      }
      answer = 500;
      const failing = run(best);
      expect(await failing.exited).toBe(1);
      expect(await new Response(failing.stderr).text()).toContain("webhook answered 500");
      const bad = run(9);
      expect(await bad.exited).toBe(2);
    } finally {
      await receiver.stop(true);
    }
  }, 30_000);
  test("alert script: an hour after sunset is never announced, whatever its rating (daylight as the best windows count it)", async () => {
    // A forecast of our own making, served where the script asks: sunset at 18:00 UTC today, rating 5 at 20:00
    // (dark), rating 4 at 14:00 and 15:00 (light), 2 elsewhere; sunrise at 07:00.
    const midnight = Date.parse(new Date().toISOString().slice(0, 10) + "T00:00:00Z");
    const at = (day: number, hour: number) => new Date(midnight + day * 86_400_000 + hour * 3_600_000).toISOString().slice(0, 19) + "Z";
    const ratingAt = (hour: number) => (hour === 20 ? 5 : hour === 14 || hour === 15 ? 4 : 2);
    const hours = Array.from({ length: 48 }, (_, i) => ({
      time: at(0, i),
      waveHeight: 2.1,
      wavePeriod: 12,
      windSpeed: 8,
      windDirectionType: "offshore",
      rating: { beginner: 1, intermediate: ratingAt(i % 24), advanced: 1 },
    }));
    const daily = [0, 1].map((day) => ({ date: at(day, 0).slice(0, 10), sunrise: at(day, 7), sunset: at(day, 18), uvIndexMax: 1 }));
    const received: Json[] = [];
    const api = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => {
        const url = new URL(req.url);
        if (url.pathname === "/hook") return req.json().then((body) => (received.push(body as Json), new Response(null, { status: 204 })));
        // Hours from the current one, as the API answers.
        const now = Math.floor(Date.now() / 3_600_000) * 3_600_000;
        return Response.json({ spot: { id: SPOT, name: "Supertubos", country: "Portugal" }, hours: hours.filter((h) => Date.parse(h.time) >= now), daily });
      },
    });
    try {
      const run = (min: number) =>
        Bun.spawn([join(ROOT, "node_modules/.bin/bun"), "scripts/examples/surf-alert.ts", "--spot", SPOT, "--min", String(min), "--hours", "48", "--webhook", `http://127.0.0.1:${api.port}/hook`], {
          cwd: ROOT,
          env: { ...process.env, SURFCAST_URL: `http://127.0.0.1:${api.port}`, SURFCAST_KEY: "sk_live_test" },
          stdout: "pipe",
          stderr: "pipe",
        });
      const five = run(5);
      expect(await five.exited).toBe(0);
      expect(await new Response(five.stdout).text()).toContain("no daylight hour at Supertubos reaches intermediate 5/5");
      expect(received).toHaveLength(0);

      const four = run(4);
      expect(await four.exited).toBe(0);
      expect(received).toHaveLength(1);
      const message = received[0]!.content as string;
      expect(message).toContain("best 4/5 at");
      expect(message).not.toContain("20:00 UTC");
      expect(message).not.toContain("5/5");
      // Before 15:00 today the first window is today's; after it, tomorrow's.
      const firstLight = hours.find((h) => Date.parse(h.time) >= Math.floor(Date.now() / 3_600_000) * 3_600_000 && h.rating.intermediate === 4)!;
      expect(message).toStartWith(`Supertubos: intermediate rating 4/5 from ${firstLight.time.slice(0, 10)} ${firstLight.time.slice(11, 16)} UTC`);
    } finally {
      await api.stop(true);
    }
  }, 30_000);
});
