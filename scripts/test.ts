export {};
/**
 * Runs the whole suite with `bun test` and ends with the line CI reads: `N passed, N failed`. The suite is every
 * `*.test.ts` under test/ (integration tests, a folder per room: test/README.md) and under src/ (unit tests, beside
 * their module).
 * Exits non-zero when any test failed or none ran. Extra arguments go to a single `bun test` (e.g. a file filter).
 *
 * Without arguments the files run in WORKERS `bun test` workers side by side (`--parallel`), each file in a fresh
 * global. Most of the suite waits on servers, binaries, browsers and paced clocks rather than computing (the soak
 * spends 7 s of CPU in its 66 s, a refresh's retries 21 s of real delays), so on a 2-core machine four workers
 * overlap that waiting: the whole `make test` of a fresh clone took 11 min with four where it took 13–16 with three. test/timings.json (each file's measured milliseconds) makes
 * the slowest files start first, so the long waits (the soak, the cluster) do not end up last;
 * SURFCAST_UPDATE_TIMINGS=1 rewrites it from the run. A file it does not list yet simply starts later.
 */
const WORKERS = Number(process.env.SURFCAST_TEST_WORKERS ?? 4);
const TIMINGS = "test/timings.json";

// Tests start real servers and compiled binaries: give each 60 s (bun test's default is 5 s; bunfig's
// [test] timeout is not read by this Bun).
async function bunTest(args: string[]): Promise<{ report: string; code: number }> {
  const proc = Bun.spawn([process.execPath, "test", "--timeout", "60000", ...args], {
    stdout: "inherit",
    stderr: "pipe",
    env: { ...process.env, FORCE_COLOR: "0" },
  });
  // bun test writes its report to stderr: keep it for the counts, and echo it as it comes.
  let report = "";
  const decoder = new TextDecoder();
  for await (const chunk of proc.stderr) {
    const text = decoder.decode(chunk, { stream: true });
    report += text;
    process.stderr.write(text);
  }
  return { report, code: await proc.exited };
}

function count(report: string, word: string): number {
  const line = report.split("\n").filter((l) => l.trim().endsWith(` ${word}`)).at(-1) ?? "";
  return Number(/^\s*(\d+) (\w+)$/m.exec(line)?.[1] ?? 0);
}

const extra = process.argv.slice(2);
let args = extra;
if (extra.length === 0) {
  const files = ["test", "src"].flatMap((dir) => [...new Bun.Glob(`${dir}/**/*.test.ts`).scanSync(".")]).sort();
  const timings = [`--timings=${TIMINGS}`, ...(process.env.SURFCAST_UPDATE_TIMINGS === "1" ? ["--update-timings"] : [])];
  args = [`--parallel=${WORKERS}`, ...timings, ...files.map((f) => `./${f}`)];
}
const run = await bunTest(args);
const passed = count(run.report, "pass");
// A process that failed without a failing test (a crash, a load error) counts as one failure; a crashed
// --parallel worker is already one failing file in bun's own count.
const failed = count(run.report, "fail") + (run.code !== 0 && count(run.report, "fail") === 0 ? 1 : 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
