/** The server's memory governor (src/ops/memory.ts): collects while above its target, never at 0. */
import { expect, test } from "bun:test";
import { GROWTH_MB, RETRY_MS, shouldCollect, startMemoryGovernor } from "../src/ops/memory";
import { loadConfig } from "../src/config";

test("shouldCollect: above the target; after a collection that stayed above it, once grown GROWTH_MB past its result or RETRY_MS later", () => {
  const cases: [rss: number, target: number, settled: number, sinceLastMs: number, collect: boolean][] = [
    [150, 140, 0, 250, true],
    [140, 140, 0, 250, false],
    [100, 140, 0, 250, false],
    [150, 0, 0, 250, false], // 0: off
    [150, 140, 150, 250, false], // the last collection left 150: nothing gained by another yet
    [150 + GROWTH_MB, 140, 150, 250, false],
    [150 + GROWTH_MB + 1, 140, 150, 250, true],
    [150, 140, 150, RETRY_MS - 1, false],
    [150, 140, 150, RETRY_MS, true], // freed pages may have reached the system since: try again
  ];
  for (const [rss, target, settled, since, collect] of cases) expect([rss, target, settled, since, shouldCollect(rss, target, settled, since)]).toEqual([rss, target, settled, since, collect]);
});

test("above the target it collects at each check while collections bring it under; target 0 never collects", async () => {
  let rss = 200;
  const probe = { rssMb: () => rss, collect: () => void (rss = 100) };
  const above = startMemoryGovernor(140, { rssMb: () => 200, collect: () => {} }); // stays above: collects once, then waits for growth
  const reaching = startMemoryGovernor(140, { rssMb: () => probe.rssMb(), collect: () => probe.collect() });
  const grow = setInterval(() => (rss = 200), 250); // garbage back above the target before each check
  const off = startMemoryGovernor(0);
  try {
    await Bun.sleep(1100);
    expect(above.collections()).toBe(1); // the next after RETRY_MS
    expect(reaching.collections()).toBeGreaterThanOrEqual(3);
    expect(off.collections()).toBe(0);
  } finally {
    clearInterval(grow);
    above.stop();
    reaching.stop();
    off.stop();
  }
});

test("a real process above the target collects", async () => {
  const real = startMemoryGovernor(1); // any process is above 1 MB
  await Bun.sleep(400);
  expect(real.collections()).toBeGreaterThanOrEqual(1);
  real.stop();
});

test("below the target it does nothing", async () => {
  const below = startMemoryGovernor(1_000_000);
  await Bun.sleep(600);
  expect(below.collections()).toBe(0);
  below.stop();
});

test("SURFCAST_MEMORY_TARGET_MB: default 140, 0 switches it off, a bad value is a clear error", () => {
  expect(loadConfig({}, {}).memoryTargetMb).toBe(140);
  expect(loadConfig({}, { SURFCAST_MEMORY_TARGET_MB: "0" }).memoryTargetMb).toBe(0);
  expect(() => loadConfig({}, { SURFCAST_MEMORY_TARGET_MB: "lots" })).toThrow(/SURFCAST_MEMORY_TARGET_MB/);
});
