/**
 * Issue #22's memory figures for `surfcast serve` (the compiled binary, the full catalog, the local fake Open-Meteo):
 * a new install's first start under load (the tide pass, then a refresh of every spot; idle 45 s after the last
 * request), idle after a restart, a full refresh while answering load, and a simulated week (bench/week-server.ts:
 * two refreshes a day on a fake clock under steady load). RSS is sampled every 100 ms from /proc; "idle" is the median over 5 s, after the
 * server's idle release (IDLE_SETTLE_MS), since freed memory reaches the kernel some seconds after a collection.
 */
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { BINARY, tempDir } from "../test/support/env";
import { cli } from "../test/support/binary";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "../test/support/fake-open-meteo";
import { rssMbOf, rssPartsOf, sampleRss, spawnListening, type Child } from "./processes";
import { seededRng } from "./prng";
import { fmt, type Section } from "./report";

const IDLE_TARGET_MB = 80;
const PEAK_TARGET_MB = 200;
const WEEK_GROWTH_TARGET = 0.05;
const HOUR_MS = 3_600_000;
/** `serve`'s default SURFCAST_IDLE_RELEASE_S (src/config.ts): "idle" is measured after it, plus 5 s for freed pages to go back. */
const IDLE_SETTLE_MS = 35_000;
/** The first start's idle is read 45 s after its last request (the target's wording), past the idle release. */
const FIRST_IDLE_AFTER_MS = 45_000;

/** Servers still running: stopped by memorySection's finally when a part fails. */
const running = new Set<Child>();

/** Starts a server process, keeping its log; listed in `running` until stopped. */
async function start(cmd: string[], env: Record<string, string>, stdin = false): Promise<Child> {
  const child = await spawnListening(cmd, { timeoutMs: 30_000, env: { SURFCAST_LOG_LEVEL: "info", ...env }, keepStderr: true, stdin });
  const server: Child = {
    ...child,
    async stop() {
      running.delete(server);
      await child.stop();
    },
  };
  running.add(server);
  return server;
}

const serve = (dataDir: string, fake: FakeOpenMeteo) =>
  // The whole catalog at start and on schedule: the figures of record are for the largest refresh.
  start([BINARY, "--data-dir", dataDir, "serve", "--port", "0"], { SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url, SURFCAST_REFRESH_SCOPE: "all" });

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(100);
  }
}

/** Median RSS over `ms` after `settleMs` (a process at rest), and the anonymous and file-backed parts at its end. */
async function idleMb(pid: number, settleMs: number, ms = 5_000): Promise<{ mb: number; anonMb: number; fileMb: number }> {
  await Bun.sleep(settleMs);
  const rss = sampleRss(pid, 100);
  await Bun.sleep(ms);
  return { ...rssPartsOf(pid), mb: rss.stop().median };
}

/** "anonymous + file-backed" of an idle reading, for the notes. */
const anonPlusFile = ({ anonMb, fileMb }: { anonMb: number; fileMb: number }) => `${fmt.mb(anonMb)} + ${fmt.mb(fileMb)}`;

/**
 * Steady request load: `clients` loops, each asking one of the endpoints (forecast, tides, now, search, nearby) of a
 * random spot at a time, with one key. Counts answers by status.
 */
function load(url: string, key: string, spots: { id: string; lat: number; lng: number; name: string }[], clients = 8) {
  const random = seededRng(22);
  const statuses = new Map<number, number>();
  let running = true;
  let paused = false;
  let inFlight = 0;
  const paths = (s: (typeof spots)[number]) => [
    `/v1/spots/${s.id}/forecast?days=7`,
    `/v1/spots/${s.id}/tides?days=7`,
    `/v1/spots/${s.id}/now`,
    `/v1/spots?q=${encodeURIComponent(s.name.split(/\s+/)[0]!.toLowerCase())}&limit=10`,
    `/v1/spots/nearby?lat=${s.lat}&lng=${s.lng}&radius=50&limit=10`,
  ];
  const loops = Array.from({ length: clients }, async () => {
    while (running) {
      if (paused) {
        await Bun.sleep(20);
        continue;
      }
      const options = paths(random.pick(spots));
      inFlight++;
      try {
        const res = await fetch(url + random.pick(options), { headers: { "X-API-Key": key, "Accept-Encoding": "br, gzip" } });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      } catch {
        await Bun.sleep(10);
      } finally {
        inFlight--;
      }
    }
  });
  return {
    /** No new request until `resume`; resolves when the ones in flight are answered. */
    async pause() {
      paused = true;
      while (inFlight > 0) await Bun.sleep(5);
    },
    resume() {
      paused = false;
    },
    async stop() {
      running = false;
      await Promise.all(loops);
      return statuses;
    },
  };
}

const describeStatuses = (s: Map<number, number>) => [...s].sort(([a], [b]) => a - b).map(([code, n]) => `${code}: ${fmt.int(n)}`).join(", ");

function catalogSpots(dataDir: string) {
  const db = new Database(join(dataDir, "surfcast.db"), { readonly: true });
  try {
    return db.query<{ id: string; lat: number; lng: number; name: string }, []>("SELECT id, lat, lng, name FROM spots").all();
  } finally {
    db.close();
  }
}

/** Makes every stored forecast older than 12 h, so the next start refreshes them all (the scheduled refresh's work). */
function ageForecasts(dataDir: string): void {
  const db = new Database(join(dataDir, "surfcast.db"));
  try {
    db.exec(`UPDATE forecast_documents SET updated_at = updated_at - ${13 * HOUR_MS}`);
  } finally {
    db.close();
  }
}

function createKey(dataDir: string): string {
  const email = "memory@example.com";
  const made = cli(dataDir, ["accounts", "create", email, "--plan", "scale", "--daily-limit", "100000000", "--minute-limit", "100000"]);
  if (made.code !== 0 && !/exists/.test(made.stderr)) throw new Error(`accounts create failed: ${made.stderr}`);
  const key = cli(dataDir, ["keys", "create", email, "--name", `memory-${Date.now()}`]);
  if (key.code !== 0) throw new Error(`keys create failed: ${key.stderr}`);
  return key.stdout.trim().split("\n").at(-1)!;
}

/** Which parts to run (all by default); `bun bench/memory.ts --parts=load,week --data-dir=DIR` reuses a filled data dir. */
export interface MemoryOptions {
  quick: boolean;
  parts?: ReadonlySet<"first" | "restart" | "load" | "week">;
  dataDir?: string;
}

/** bench/week-server.ts compiled like dist/surfcast (same build, bytecode and embedded files), so its RSS is comparable. */
function weekServerBinary(): string {
  const outfile = join(tempDir("week-server"), "week-server");
  const built = Bun.spawnSync([process.execPath, join(import.meta.dir, "../scripts/build.ts")], {
    env: { ...process.env, ENTRY: join(import.meta.dir, "week-server.ts"), OUTFILE: outfile },
    stdout: "pipe",
    stderr: "pipe",
  });
  if (built.exitCode !== 0) throw new Error(`building week-server failed: ${built.stderr.toString()}`);
  return outfile;
}

export async function memorySection({ quick, parts = new Set(["first", "restart", "load", "week"]), dataDir = tempDir("bench-memory") }: MemoryOptions): Promise<Section> {
  const section: Section = {
    title: "Memory of `surfcast serve` (issue #22)",
    intro:
      "The compiled binary with the full catalog against the local fake Open-Meteo, RSS from /proc every 100 ms. Idle = median over 5 s, 35 s after the last request (the server drops its caches, the loaded catalog with its search and spatial indexes, and SQLite's page caches after 30 s without one, SURFCAST_IDLE_RELEASE_S, and takes the pages of its own code out of its memory; freed memory reaches the kernel seconds after a collection). Load = 8 clients asking forecasts, tides, now, search and nearby of random spots, brotli accepted.",
    header: ["measure", "MB", "target", "verdict"],
    rows: [],
    notes: [],
  };
  /** Each idle reading's anonymous + file-backed MB. */
  const idleParts: string[] = [];
  const today = new Date().toISOString().slice(0, 10);
  const fake = await startFakeOpenMeteo({ firstDay: today });
  try {
    // The load's key and spots, once the catalog is in the data dir.
    let inputs: { key: string; spots: ReturnType<typeof catalogSpots> } | undefined;
    const loadInputs = () => (inputs ??= { key: createKey(dataDir), spots: catalogSpots(dataDir).filter((s) => /^\p{L}{2}/u.test(s.name)) });

    if (parts.has("first")) {
      // 1. A new install's first start: migrations, the catalog, a refresh of every spot and the full tide pass, under
      // the same load as the scheduled refresh below (the key is made while it runs: operator commands do not wait for it).
      const first = await serve(dataDir, fake);
      const firstRss = sampleRss(first.pid, 100);
      const started = performance.now();
      const { key, spots } = loadInputs();
      const clients = load(first.url, key, spots);
      await until(() => /forecast refresh done/.test(first.output()) && /tide window ready/.test(first.output()), 300_000, "the first refresh and tide pass");
      const doneS = (performance.now() - started) / 1000;
      const answered = await clients.stop();
      const firstPeak = firstRss.stop().peak;
      const afterFirst = await idleMb(first.pid, FIRST_IDLE_AFTER_MS);
      const workerLoaded = /tide database loaded/.test(first.output());
      await first.stop();
      section.rows!.push([
        `first start on an empty data dir under load: refresh of every spot + full tide pass (tide database worker ${workerLoaded ? "started" : "not started"}; done ${doneS.toFixed(1)} s after start), peak`,
        fmt.mb(firstPeak),
        `< ${PEAK_TARGET_MB}`,
        fmt.verdict(firstPeak < PEAK_TARGET_MB),
      ]);
      section.rows!.push([`idle ${FIRST_IDLE_AFTER_MS / 1000} s after the first start's last request`, fmt.mb(afterFirst.mb), `< ${IDLE_TARGET_MB}`, fmt.verdict(afterFirst.mb < IDLE_TARGET_MB)]);
      idleParts.push(`after the first start ${anonPlusFile(afterFirst)}`);
      section.notes!.push(`Answers during the first start under load: ${describeStatuses(answered)}.`);
    }

    const { key, spots } = loadInputs();

    if (parts.has("restart")) {
      // 2. A restart: fresh forecasts, no refresh; idle after the warm-up.
      const restarted = await serve(dataDir, fake);
      const idleRestart = await idleMb(restarted.pid, IDLE_SETTLE_MS);
      await restarted.stop();
      section.rows!.push(["idle after a restart (no refresh due; the warm-up's search index dropped with the caches)", fmt.mb(idleRestart.mb), `< ${IDLE_TARGET_MB}`, fmt.verdict(idleRestart.mb < IDLE_TARGET_MB)]);
      idleParts.push(`after a restart ${anonPlusFile(idleRestart)}`);
    }

    if (parts.has("load")) {
    // 3. The scheduled refresh's work under load: every forecast stale at start, 8 clients asking meanwhile.
    ageForecasts(dataDir);
    const busy = await serve(dataDir, fake);
    const busyRss = sampleRss(busy.pid, 100);
    const clients = load(busy.url, key, spots);
    await until(() => /forecast refresh done/.test(busy.output()), 300_000, "the refresh under load");
    const answered = await clients.stop();
    const busyPeak = busyRss.stop().peak;
    const idleAfter = await idleMb(busy.pid, IDLE_SETTLE_MS);
    await busy.stop();
    section.rows!.push([
      "full refresh of every spot while answering load, peak",
      fmt.mb(busyPeak),
      `< ${PEAK_TARGET_MB}`,
      fmt.verdict(busyPeak < PEAK_TARGET_MB),
    ]);
    section.rows!.push(["idle after that refresh and load", fmt.mb(idleAfter.mb), `< ${IDLE_TARGET_MB}`, fmt.verdict(idleAfter.mb < IDLE_TARGET_MB)]);
    idleParts.push(`after the refresh under load ${anonPlusFile(idleAfter)}`);
    section.notes!.push(`Answers during the refresh under load: ${describeStatuses(answered)}.`);
    }
    if (idleParts.length)
      section.notes!.push(
        `The idle readings' two parts at their end, anonymous + file-backed MB (/proc's RssAnon and RssFile): ${idleParts.join("; ")}. The file-backed part is the binary's pages that the code run since the idle release read back in (src/ops/code-pages.ts).`,
      );
    if (!parts.has("week")) return section;

    // 4. A week on a simulated clock: two refreshes and tide passes a day under steady load; the end of day 7 vs day 1.
    const days = quick ? 2 : 7;
    const week = await start(
      [weekServerBinary(), dataDir],
      {
        SURFCAST_OPEN_METEO_MARINE_URL: fake.url,
        SURFCAST_OPEN_METEO_FORECAST_URL: fake.url,
        SURFCAST_LOG_LEVEL: "warn",
      },
      true,
    );
    const weekLoad = load(week.url, key, spots);
    // A real day's traffic fills the bounded caches; so does this before day 1, so their filling is not read as growth.
    await Bun.sleep(quick ? 15_000 : 40_000);
    const dayEnds: number[] = [];
    const weekHeaps: number[] = [];
    const dayKept: number[] = [];
    const keptHeaps: number[] = [];
    const keptParts: string[] = [];
    let simulated = Date.now();
    const writer = week.proc.stdin as import("bun").FileSink;
    for (let step = 1; step <= days * 2; step++) {
      simulated += 12 * HOUR_MS;
      fake.setFirstDay(new Date(simulated).toISOString().slice(0, 10));
      const stepped = (week.output().match(/stepped/g) ?? []).length;
      writer.write(`step ${12 * HOUR_MS}\n`);
      writer.flush();
      await until(() => (week.output().match(/stepped/g) ?? []).length > stepped, 300_000, `simulated step ${step}`);
      // The day's end: its two refreshes done, requests still coming; what the server holds after a collection.
      if (step % 2 === 0) {
        const [, rss, heap] = [...week.output().matchAll(/stepped ([\d.]+) heap ([\d.]+)/g)].at(-1)!;
        dayEnds.push(Number(rss));
        weekHeaps.push(Number(heap));
        // And what it keeps of its own: the requests paused, the idle release run as after 30 s without one.
        await weekLoad.pause();
        const measured = (week.output().match(/measured/g) ?? []).length;
        writer.write("measure\n");
        writer.flush();
        await until(() => (week.output().match(/measured/g) ?? []).length > measured, 60_000, `day ${step / 2}'s release`);
        weekLoad.resume();
        const [, keptRss, keptHeap] = [...week.output().matchAll(/measured ([\d.]+) heap ([\d.]+)/g)].at(-1)!;
        dayKept.push(Number(keptRss));
        keptHeaps.push(Number(keptHeap));
        keptParts.push(anonPlusFile(rssPartsOf(week.proc.pid)));
      }
      await Bun.sleep(3_000);
    }
    const weekAnswers = await weekLoad.stop();
    await week.stop();
    const growth = dayKept.at(-1)! / dayKept[0]! - 1;
    section.rows!.push(
      [
        `a simulated week (${days} days, ${days * 2} full refreshes + tide passes, steady load): RSS at the end of each day with the requests paused and the idle release run (caches emptied, a full collection)`,
        dayKept.map((mb) => fmt.int(mb)).join(" → "),
        `last day within ${WEEK_GROWTH_TARGET * 100} % of the first`,
        `${growth >= 0 ? "+" : ""}${(growth * 100).toFixed(1)} % — ${fmt.verdict(growth <= WEEK_GROWTH_TARGET)}`,
      ],
      ["the same days' ends under load, after a full collection (with whatever the bounded caches hold at that instant)", dayEnds.map((mb) => fmt.int(mb)).join(" → "), "—", "—"],
    );
    section.notes!.push(
      `The week runs the same app, HTTP server and usage flush as \`serve\` (bench/week-server.ts, compiled like the binary); its clock moves 12 h per step and the fake Open-Meteo's series move with it; the same load runs 40 s before day 1 so that filling the bounded caches is not read as growth. Each day's end is read twice: under load after a full collection, and with the requests paused after the idle release (what \`serve\` does after 30 s without a request): the first moves ±10 % with what the bounded caches hold at that instant, the second is what the server keeps of its own, the figure a leak would grow. Live JavaScript heap (with external memory) at each day's end, under load: ${weekHeaps.map((mb) => fmt.int(mb)).join(" → ")} MB; after the release: ${keptHeaps.map((mb) => fmt.int(mb)).join(" → ")} MB, its RSS anonymous + file-backed: ${keptParts.join(" → ")} MB. Answers during the week: ${describeStatuses(weekAnswers)}.`,
      `Current RSS of this benchmark process: ${fmt.int(rssMbOf(process.pid))} MB (not counted above).`,
    );
    return section;
  } finally {
    for (const server of running) await server.stop();
    await fake.close();
  }
}

if (import.meta.main) {
  const { renderSection } = await import("./report");
  const flag = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const parts = flag("parts")?.split(",") as ("first" | "restart" | "load" | "week")[] | undefined;
  console.log(renderSection(await memorySection({ quick: process.argv.includes("--quick"), parts: parts && new Set(parts), dataDir: flag("data-dir") })));
}
