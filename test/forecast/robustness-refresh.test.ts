/**
 * The forecast refresh seen end to end through the compiled binary (#9), against the local fake Open-Meteo.
 * (The refresh engine's own tests cover each fault in-process; these check the whole appliance.)
 *  - Upstream faults (500, 429, 503, timeouts, truncated JSON, all-null series) during `surfcast refresh`
 *    while `surfcast serve` answers forecasts: it keeps serving, every stored document is the old one or the
 *    new one (never a mix), and the failures are reported (exit status and summary).
 *  - kill -9 in the middle of a refresh: after a restart every spot has its previous or its new document and
 *    the database passes PRAGMA integrity_check.
 * Old and new documents are told apart by the day the fake's series start on (yesterday vs today).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { BINARY, CATALOG_PATH, tempDir } from "../support/env";
import { cli, createKey, startServer } from "../support/binary";
import { apiFetch } from "../support/http";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { documentText } from "../../src/db/document-codec";

const DAY_MS = 86_400_000;
const today = new Date().toISOString().slice(0, 10);
const yesterday = new Date(Date.now() - DAY_MS).toISOString().slice(0, 10);

interface Refresh {
  proc: ReturnType<typeof Bun.spawn>;
  done: Promise<{ code: number; stdout: string; stderr: string }>;
}

/** `surfcast refresh` as a child process (async, so the in-process fake keeps answering). */
function refresh(dataDir: string, fake: FakeOpenMeteo, env: Record<string, string> = {}): Refresh {
  const proc = Bun.spawn([BINARY, "--data-dir", dataDir, "refresh"], {
    env: { ...process.env, SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, SURFCAST_LOG_LEVEL: "warn", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const done = (async () => {
    const [stdout, stderr] = await Promise.all([new Response(proc.stdout as ReadableStream).text(), new Response(proc.stderr as ReadableStream).text()]);
    return { code: await proc.exited, stdout, stderr };
  })();
  return { proc, done };
}

/** Each stored document classified by the day its series start on; anything else is a "mixed" document. */
function classify(dataDir: string): { old: number; new: number; mixed: string[]; total: number; integrity: string } {
  const db = new Database(join(dataDir, "surfcast.db"));
  try {
    const integrity = (db.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
    const rows = db.query("SELECT spot_id AS id, body FROM forecast_documents").all() as { id: string; body: Uint8Array }[];
    const out = { old: 0, new: 0, mixed: [] as string[], total: rows.length, integrity };
    for (const { id, body } of rows) {
      const hours = (JSON.parse(documentText(body)) as { hours: { time: string }[] }).hours;
      const days = new Set(hours.map((h) => h.time.slice(0, 10)));
      const first = hours[0]?.time.slice(0, 10);
      // A document from one fetch covers consecutive days from its own first day; old starts yesterday, new today.
      if (first === yesterday && days.size > 1) out.old++;
      else if (first === today && !days.has(yesterday)) out.new++;
      else out.mixed.push(id);
    }
    return out;
  } finally {
    db.close();
  }
}

let fake: FakeOpenMeteo;
beforeAll(async () => {
  fake = await startFakeOpenMeteo({ firstDay: yesterday });
});
afterAll(async () => {
  await fake.close();
});

/**
 * A data dir whose every spot has an "old" document (series from yesterday). Its catalog is every eighth spot of the
 * default one (~730 spots from every coast, still many batches): the same refresh paths as the whole catalog (faults
 * spread over several batches, a kill between committed batches) at an eighth of the time.
 * Made once (an import and a first refresh); each test gets a copy of its own.
 */
let prepared: Promise<{ dataDir: string; spots: number }> | undefined;

async function prepareOldDocuments(): Promise<{ dataDir: string; spots: number }> {
  const dataDir = tempDir("refresh-old");
  const subset = join(dataDir, "catalog-subset.json");
  writeFileSync(subset, JSON.stringify((JSON.parse(readFileSync(CATALOG_PATH, "utf8")) as unknown[]).filter((_, i) => i % 8 === 0)));
  expect(cli(dataDir, ["spots", "import", subset, "--replace"]).code).toBe(0);
  createKey(dataDir, "refresh@example.com", "scale", ["--daily-limit", "100000000", "--minute-limit", "100000"]);
  fake.reset();
  const first = await refresh(dataDir, fake).done;
  expect(first.code).toBe(0);
  const state = classify(dataDir);
  expect(state.old).toBe(state.total);
  expect(state.total).toBeGreaterThan(700);
  return { dataDir, spots: state.total };
}

async function withOldDocuments(prefix: string): Promise<{ dataDir: string; spots: number }> {
  const { dataDir: source, spots } = await (prepared ??= prepareOldDocuments());
  const dataDir = tempDir(prefix);
  // No process has the source open: its database file and WAL are copied as they were left.
  cpSync(source, dataDir, { recursive: true });
  return { dataDir, spots };
}

describe("refresh through the compiled binary", () => {
  test("upstream faults while serving: keeps serving, documents old or new, failures reported", async () => {
    const { dataDir, spots } = await withOldDocuments("refresh-faults");
    const key = createKey(dataDir, "refresh@example.com");
    const server = await startServer({ dataDir });
    const sample = (await (await apiFetch(`${server.url}/v1/spots?q=beach&limit=50`, { headers: { "X-API-Key": key } })).json()) as { id: string }[];
    expect(sample.length).toBeGreaterThan(0);

    // Serve forecasts for the whole refresh; every answer must be a 200.
    let serving = true;
    const answers = new Map<number, number>();
    const reader = (async () => {
      for (let i = 0; serving; i++) {
        const res = await apiFetch(`${server.url}/v1/spots/${sample[i % sample.length]!.id}/forecast?days=2`, { headers: { "X-API-Key": key } });
        await res.arrayBuffer();
        answers.set(res.status, (answers.get(res.status) ?? 0) + 1);
        await Bun.sleep(5); // a steady reader, well under the key's burst limit
      }
    })();

    fake.reset();
    const now = await startFakeOpenMeteo({ firstDay: today });
    now.inject("500", { endpoint: "forecast", next: 2 });
    now.inject("503", { endpoint: "marine", next: 2 });
    // A 429 that names no wait (the minutely one asks for 60 s, which refresh.test.ts covers with a fake clock).
    now.inject({ status: 429, reason: "Too many concurrent requests" }, { endpoint: "forecast", next: 2 });
    now.inject("truncated", { endpoint: "marine", next: 2 });
    now.inject({ delayMs: 1500 }, { endpoint: "forecast", next: 2 });
    now.inject("all-null", { endpoint: "marine", next: 2 });
    let result: Awaited<Refresh["done"]>;
    try {
      result = await refresh(dataDir, now, { SURFCAST_OPEN_METEO_RETRIES: "1", SURFCAST_OPEN_METEO_TIMEOUT_MS: "700", SURFCAST_OPEN_METEO_BATCH_SIZE: "100", SURFCAST_REFRESH_GIVE_UP_AFTER: "100" }).done;
    } finally {
      serving = false;
      await reader;
      await now.close();
      await server.stop();
    }
    expect([...answers.keys()]).toEqual([200]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/Spots:\s+\d+ ok, [1-9]\d* failed/);
    expect(result.stdout).toContain("Error:");
    const ok = Number(/Spots:\s+(\d+) ok/.exec(result.stdout)![1]);
    const state = classify(dataDir);
    expect(state.integrity).toBe("ok");
    expect(state.mixed).toEqual([]);
    expect(state.total).toBe(spots);
    expect(state.new).toBe(ok);
    expect(state.old).toBe(spots - ok);
  }, 240_000);

  test("kill -9 in the middle of a refresh: previous or new document per spot, integrity ok", async () => {
    const { dataDir, spots } = await withOldDocuments("refresh-kill");
    const now = await startFakeOpenMeteo({ firstDay: today });
    // Slow answers so the kill lands between committed batches and in-flight ones.
    now.inject({ delayMs: 150 });
    try {
      const running = refresh(dataDir, now, { SURFCAST_OPEN_METEO_BATCH_SIZE: "50" });
      const deadline = Date.now() + 60_000;
      while (now.requests.length < 12 && Date.now() < deadline) await Bun.sleep(20);
      running.proc.kill("SIGKILL");
      expect((await running.done).code).not.toBe(0);
    } finally {
      await now.close();
    }
    // Restart: the server opens the database (WAL recovery) and serves.
    const key = createKey(dataDir, "refresh@example.com");
    const server = await startServer({ dataDir });
    const sample = (await (await apiFetch(`${server.url}/v1/spots?q=point&limit=5`, { headers: { "X-API-Key": key } })).json()) as { id: string }[];
    for (const s of sample) expect((await apiFetch(`${server.url}/v1/spots/${s.id}/forecast?days=1`, { headers: { "X-API-Key": key } })).status).toBe(200);
    await server.stop();

    const state = classify(dataDir);
    expect(state.integrity).toBe("ok");
    expect(state.mixed).toEqual([]);
    expect(state.total).toBe(spots);
    // The kill really fell in the middle: some batches were written, not all.
    expect(state.new).toBeGreaterThan(0);
    expect(state.old).toBeGreaterThan(0);
  }, 240_000);
});
