export {};
/**
 * Runs the whole suite with `bun test` and ends with the line CI reads: `N passed, N failed`. The suite is every
 * `*.test.ts` under test/ (integration tests, a folder per room: test/README.md) and under src/ (unit tests, beside
 * their module).
 * Exits non-zero when any test failed or none ran. Extra arguments go to a single `bun test` (e.g. a file filter).
 *
 * Without arguments the suite runs as two `bun test` processes side by side: the files in WAITING spend most of
 * their minutes waiting (a paced 60 s soak, a refresh against an upstream that is down, with the real retry delays,
 * three servers waiting out propagation and restarts) and use little CPU, so on a 2-core machine they overlap the
 * rest almost for free (~150 s off the wall time). Their report is printed after the main one.
 */
const WAITING = ["test/system/soak.test.ts", "test/forecast/refresh-cli.test.ts", "test/system/cluster.test.ts"];

type Run = { report: string; code: number };

// Tests start real servers and compiled binaries: give each 60 s (bun test's default is 5 s; bunfig's
// [test] timeout is not read by this Bun).
async function bunTest(args: string[], live: boolean): Promise<Run> {
  const proc = Bun.spawn([process.execPath, "test", "--timeout", "60000", ...args], {
    stdout: live ? "inherit" : "pipe",
    stderr: "pipe",
    env: { ...process.env, FORCE_COLOR: "0" },
  });
  // bun test writes its report to stderr: keep it for the counts, and echo it as it comes when live.
  let report = "";
  const decoder = new TextDecoder();
  const stdout = live ? Promise.resolve("") : new Response(proc.stdout as ReadableStream).text();
  for await (const chunk of proc.stderr) {
    const text = decoder.decode(chunk);
    report += text;
    if (live) process.stderr.write(text);
  }
  if (!live) process.stdout.write(await stdout);
  return { report, code: await proc.exited };
}

function count(run: Run, word: string): number {
  const line = run.report.split("\n").filter((l) => l.trim().endsWith(` ${word}`)).at(-1) ?? "";
  return Number(/^\s*(\d+) (\w+)$/m.exec(line)?.[1] ?? 0);
}

const extra = process.argv.slice(2);
let runs: Run[];
if (extra.length > 0) {
  runs = [await bunTest(extra, true)];
} else {
  const files = ["test", "src"].flatMap((dir) => [...new Bun.Glob(`${dir}/**/*.test.ts`).scanSync(".")]).sort();
  const missing = WAITING.filter((f) => !files.includes(f));
  if (missing.length > 0) throw new Error(`scripts/test.ts: WAITING names files that do not exist: ${missing.join(", ")}`);
  const main = files.filter((f) => !WAITING.includes(f)).map((f) => `./${f}`);
  const waiting = bunTest(WAITING.map((f) => `./${f}`), false);
  const first = await bunTest(main, true);
  const second = await waiting;
  process.stderr.write(`\n--- run alongside (${WAITING.join(", ")}) ---\n${second.report}`);
  runs = [first, second];
}
const passed = runs.reduce((n, r) => n + count(r, "pass"), 0);
// A process that failed without a failing test (a crash, a load error) counts as one failure.
const failed = runs.reduce((n, r) => n + count(r, "fail") + (r.code !== 0 && count(r, "fail") === 0 ? 1 : 0), 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
