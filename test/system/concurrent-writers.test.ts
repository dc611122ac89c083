/**
 * Concurrent writers wait, they never fail: 200 console commands (`keys create`, `keys revoke`, `accounts …`)
 * through the compiled binary while a server on the same data dir runs its start-up tide window pass, then its full
 * refresh (against the fake Open-Meteo), and request load — every command must succeed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { BINARY, tempDir } from "../support/env";
import { cli, startServer, type RunningServer } from "../support/binary";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../support/fake-open-meteo";
import { waitFor } from "../support/wait";

let fake: FakeOpenMeteo;
let server: RunningServer;
const dir = tempDir("writers");

beforeAll(async () => {
  fake = await startFakeOpenMeteo();
  expect(cli(dir, ["accounts", "create", "ops@example.com", "--plan", "scale", "--max-keys", "10000"]).code).toBe(0);
  const env = { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, SURFCAST_OPEN_METEO_BATCH_SIZE: "150", SURFCAST_REFRESH_SCOPE: "all" };
  server = await startServer({ dataDir: dir, env, args: [] }); // scheduler on: start-up refresh + tide pass
}, 30_000);
afterAll(async () => {
  await server?.stop();
  await fake.close();
}, 30_000);

async function run(args: string[]): Promise<{ code: number; out: string }> {
  const proc = Bun.spawn([BINARY, "--data-dir", dir, ...args], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, out: stdout + stderr };
}

test("200 console writes during the start-up tide pass and full refresh, and request load: 0 failures", async () => {
  expect(cli(dir, ["accounts", "create", "load@example.com", "--plan", "scale"]).code).toBe(0);
  // This first write meets the start-up tide pass at its busiest (it once held the write lock for seconds on end).
  const passRunning = !server.output().includes("tide window ready");
  const made = cli(dir, ["keys", "create", "load@example.com", "--name", "load"]);
  expect({ code: made.code, stderr: made.stderr }).toEqual({ code: 0, stderr: "" });
  const key = made.stdout.trim().split("\n").at(-1)!;
  let loading = true;
  let served = 0;
  /** Statuses other than 200, for the failure message. */
  const answers = new Map<number, number>();
  const load = (async () => {
    for (let i = 0; loading && i < 100_000; i++) {
      const r = await fetch(`${server.url}/v1/spots?q=super&limit=5`, { headers: { "X-API-Key": key } });
      await r.arrayBuffer();
      if (r.status === 200) served++;
      else answers.set(r.status, (answers.get(r.status) ?? 0) + 1);
    }
  })();

  const failures: string[] = [];
  const ids: string[] = [];
  let n = 0;
  const worker = async () => {
    while (n < 200) {
      const i = n++;
      let args: string[];
      if (i % 3 === 0) args = ["keys", "create", "ops@example.com", "--name", `k${i}`, "--json"];
      else if (i % 3 === 1 && ids.length > 0) args = ["keys", "revoke", ids.shift()!];
      else if (i % 6 === 2) args = ["accounts", "create", `user${i}@example.com`, "--plan", "starter"];
      else args = ["accounts", i % 2 ? "disable" : "enable", "ops@example.com"];
      const r = await run(args);
      if (r.code !== 0) failures.push(`${args.join(" ")} → ${r.code}: ${r.out}`);
      else if (args[1] === "create" && args[0] === "keys") ids.push((JSON.parse(r.out) as { id: string }).id);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
  loading = false;
  await load;

  expect(failures).toEqual([]);
  // The load never saw a server error; on a busy machine the start-up refresh and tide pass can hold every answer
  // of the write window back, so the server must (still) answer this key once the writes are done.
  expect([...answers.keys()].filter((status) => status >= 500)).toEqual([]);
  let after = 0;
  await waitFor("the server to answer the key", async () => (after = (await fetch(`${server.url}/v1/spots?q=super&limit=5`, { headers: { "X-API-Key": key } })).status) === 200, 65_000, 200).catch(() => {});
  expect({ after, servedDuringWrites: served, otherAnswers: Object.fromEntries(answers) }).toMatchObject({ after: 200 });
  // The writers really overlapped the server's start-up writes: the tide pass (the start-up refresh follows it) was
  // still writing when the first command ran.
  expect(passRunning).toBe(true);
  expect(server.output()).not.toContain("database is locked");
}, 180_000);
