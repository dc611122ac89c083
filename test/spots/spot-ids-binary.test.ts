/**
 * Every id form the API accepts (the slug, the 16-hex id in either case) works on every spot endpoint, through the
 * compiled binary in the refresh scope `requested` with the fake Open-Meteo: a spot first asked for by its hex id
 * gets its forecast fetched on demand and recorded as asked for (as its slug would), over /v1, MCP and an embed; the
 * same spot named twice in /v1/now, in any two forms, is a 400.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cli, cliAsync, createKey, startServer, type RunningServer } from "../support/binary";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { apiFetch } from "../support/http";
import type { Spot } from "../../src/spots/types";
import { waitFor } from "../support/wait";

let fake: FakeOpenMeteo;
let server: RunningServer;
let key: string;
/** Spots nobody has asked for yet, one per endpoint that asks for a forecast. */
let fresh: Spot[];

beforeAll(async () => {
  fake = await startFakeOpenMeteo({ firstDay: new Date().toISOString().slice(0, 10) });
  server = await startServer({
    args: [],
    env: { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, SURFCAST_OPEN_METEO_RETRIES: "0", SURFCAST_REFRESH_SCOPE: "requested" },
  });
  key = createKey(server.dataDir);
  // A search asks for no forecast: it only lists spots to ask for.
  fresh = (await (await get("/v1/spots?q=beach&limit=20")).json()) as Spot[];
  expect(fresh.length).toBe(20);
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return apiFetch(server.url + path, { headers: { "X-API-Key": key, ...headers } });
}

async function tool(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; structuredContent: Record<string, any> }> {
  const res = await apiFetch(`${server.url}/mcp`, {
    method: "POST",
    headers: { "X-API-Key": key, "Content-Type": "application/json", Accept: "application/json, text/event-stream", "MCP-Protocol-Version": "2025-06-18" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { result: { isError?: boolean; structuredContent: Record<string, any> } }).result;
}

/** The forms of one spot's id: the hex id first (the form that failed), upper-case, then the slug. */
const forms = (spot: Spot) => [spot.hexId, spot.hexId.toUpperCase(), spot.id];

async function body(res: Response): Promise<Record<string, any>> {
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, any>;
}

/** Each endpoint that asks for a forecast, by an id form: what it answered, and whether that holds a forecast. */
const ASKING: { name: string; ask: (id: string) => Promise<Record<string, any>>; hasForecast: (answer: Record<string, any>) => boolean }[] = [
  { name: "GET /v1/spots/{id}/forecast", ask: async (id) => body(await get(`/v1/spots/${id}/forecast?days=1`)), hasForecast: (a) => a.hours.length > 0 },
  { name: "GET /v1/spots/{id}/now", ask: async (id) => body(await get(`/v1/spots/${id}/now`)), hasForecast: (a) => a.conditions !== null },
  { name: "GET /v1/now", ask: async (id) => body(await get(`/v1/now?spots=${id}`)), hasForecast: (a) => a.spots[0].conditions !== null },
  { name: "MCP get_forecast", ask: async (id) => (await tool("get_forecast", { spot_id: id, days: 1 })).structuredContent, hasForecast: (a) => a.hours.length > 0 },
  { name: "MCP spot_now", ask: async (id) => (await tool("spot_now", { spot_id: id })).structuredContent, hasForecast: (a) => a.conditions !== null },
];

describe("a spot first asked for by its 16-hex id gets its forecast, as by its slug", () => {
  ASKING.forEach(({ name, ask, hasForecast }, i) => {
    test(name, async () => {
      const spot = fresh[i]!;
      const [hex, upper, slug] = forms(spot);
      const first = await ask(hex!);
      expect([name, hasForecast(first)]).toEqual([name, true]);
      // The same spot, the same answer, whichever form names it; fetched once. The answers of /now count minutes, so
      // the three forms are compared within one minute: asked again while the first form's answer still holds.
      const fetched = fake.requests.length;
      let answers: Record<string, any>[] = [];
      for (let attempt = 0; attempt < 3; attempt++) {
        const reference = await ask(hex!);
        answers = [reference, await ask(upper!), await ask(slug!)];
        if (Bun.deepEquals(await ask(hex!), reference)) break;
      }
      for (const answer of answers.slice(1)) expect(answer).toEqual(answers[0]!);
      expect(fake.requests.length).toBe(fetched);
    }, 30_000);
  });

  test("an embed made with a spot's hex id shows its forecast", async () => {
    const spot = fresh[ASKING.length]!;
    const keyId = (JSON.parse(cli(server.dataDir, ["keys", "list", "dev@example.com", "--json"]).stdout) as { id: string }[])[0]!.id;
    const made = cli(server.dataDir, ["embeds", "create", keyId, "--spots", spot.hexId, "--json"], { SURFCAST_PUBLIC_URL: server.url });
    expect(made.code).toBe(0);
    const { id } = JSON.parse(made.stdout) as { id: string };
    // The server notices the CLI's write within a second.
    const page = await waitFor("the server to serve the new embed", async () => {
      const res = await fetch(`${server.url}/embed/${id}`);
      return res.status === 200 && res;
    }, 10_000);
    const html = await page.text();
    expect(html).toContain(spot.name.replaceAll("&", "&amp;"));
    expect(html).toContain("<svg");
  }, 30_000);

  test("every spot asked for is recorded under its catalog id: the requested refresh covers them all, and nothing failed to be written", async () => {
    const asked = ASKING.length + 1;
    const scope = await waitFor("status to count every spot asked for", async () => {
      const status = await cliAsync(server.dataDir, ["status", "--json"]);
      const named = (JSON.parse(status.stdout) as { refreshScope: { scope: string; requestedSpots: number } }).refreshScope;
      return named.requestedSpots === asked && named;
    }, 10_000);
    expect(scope).toEqual({ scope: "requested", requestedSpots: asked });
    expect(server.output()).not.toContain("could not record which spots were asked for");
  }, 30_000);
});

describe("the endpoints without a forecast answer the same for every id form", () => {
  for (const [name, path] of [
    ["GET /v1/spots/{id}", (id: string) => `/v1/spots/${id}`],
    ["GET /v1/spots/{id}/tides", (id: string) => `/v1/spots/${id}/tides?days=2`],
  ] as const) {
    test(name, async () => {
      const spot = fresh.at(-1)!;
      const [hex, upper, slug] = forms(spot);
      const bySlug = await body(await get(path(slug!)));
      expect(bySlug.id ?? bySlug.spot.id).toBe(spot.id);
      for (const id of [hex!, upper!]) expect(await body(await get(path(id)))).toEqual(bySlug);
    });
  }

  test("MCP get_tides", async () => {
    const spot = fresh.at(-1)!;
    const answers = await Promise.all(forms(spot).map((id) => tool("get_tides", { spot_id: id, days: 2 })));
    for (const answer of answers) expect(answer.structuredContent).toEqual(answers[2]!.structuredContent);
  });
});

describe("GET /v1/now: distinct means distinct spots", () => {
  const error = async (path: string) => {
    const res = await get(path);
    return { status: res.status, body: (await res.json()) as { error: { code: string; message: string } } };
  };

  test("one spot by its slug and by its hex id is a 400 in the same shape as a repeated id, naming the spot", async () => {
    const spot = fresh[0]!;
    const repeated = await error(`/v1/now?spots=${spot.id},${spot.id}`);
    expect(repeated.status).toBe(400);
    for (const spots of [`${spot.id},${spot.hexId}`, `${spot.hexId},${spot.hexId.toUpperCase()}`, `${fresh[1]!.id},${spot.hexId},${spot.id}`]) {
      const refused = await error(`/v1/now?spots=${spots}`);
      expect([spots, refused.status, refused.body.error.code]).toEqual([spots, 400, "invalid_request"]);
      expect(Object.keys(refused.body)).toEqual(["error"]);
      expect(Object.keys(refused.body.error).sort()).toEqual(["code", "message"]);
      expect(refused.body.error.message).toContain(`'${spot.id}' more than once`);
    }
  });

  test("such a 400 counts once, as every 400 of /v1/now does", async () => {
    const today = async () => ((await body(await get("/v1/usage"))) as { today: number }).today;
    const spot = fresh[0]!;
    const before = await today();
    expect((await get(`/v1/now?spots=${spot.id},${fresh[1]!.hexId},${spot.hexId}`)).status).toBe(400);
    expect(await today()).toBe(before + 1);
  });

  test("distinct spots in any forms are answered in the order asked, each once", async () => {
    const [a, b] = [fresh[0]!, fresh[1]!];
    const answer = await body(await get(`/v1/now?spots=${a.hexId},${b.id}`));
    expect(answer.spots.map((s: { spot: { id: string } }) => s.spot.id)).toEqual([a.id, b.id]);
  });
});
