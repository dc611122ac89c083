/** The server's memory governor (src/ops/memory.ts): collects while above its target, never at 0. */
import { expect, test } from "bun:test";
import { FREED_MB, QUIET_MS, quietUntil, startMemoryGovernor } from "../src/ops/memory";
import { loadConfig } from "../src/config";

test("quietUntil: a pause only after a collection that freed little and left the process above the target", () => {
  const cases: [freedMb: number, rssAfterMb: number, targetMb: number, wait: number][] = [
    [FREED_MB - 1, 150, 140, QUIET_MS], // live data above the target: nothing to gain by collecting again soon
    [FREED_MB, 150, 140, 0], // garbage being made: keep pace
    [50, 150, 140, 0],
    [0, 130, 140, 0], // under the target: the next check decides
  ];
  for (const [freed, after, target, wait] of cases) expect([freed, after, target, quietUntil(1_000, freed, after, target) - 1_000]).toEqual([freed, after, target, wait]);
});

test("above the target it collects at each check while collections free garbage, and pauses when they free nothing; target 0 never collects", async () => {
  let heap = 100;
  const busy = startMemoryGovernor(140, { rssMb: () => 200, heapMb: () => heap, collect: () => void (heap = 100) });
  const garbage = setInterval(() => (heap = 150), 100); // 50 MB of garbage between checks
  const idle = startMemoryGovernor(140, { rssMb: () => 200, heapMb: () => 100, collect: () => {} });
  const off = startMemoryGovernor(0);
  try {
    await Bun.sleep(1_100);
    expect(busy.collections()).toBeGreaterThanOrEqual(3);
    expect(idle.collections()).toBe(1); // the next after QUIET_MS
    expect(off.collections()).toBe(0);
  } finally {
    clearInterval(garbage);
    busy.stop();
    idle.stop();
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
