/** The server's memory governor (src/ops/memory.ts): collects while above its target, never at 0. */
import { expect, test } from "bun:test";
import { HEAP_GROWTH_MB, shouldCollect, startMemoryGovernor } from "../src/ops/memory";
import { loadConfig } from "../src/config";

test("shouldCollect: above the target and the heap grown HEAP_GROWTH_MB since the last collection", () => {
  const cases: [rss: number, target: number, heap: number, heapAfterLast: number, collect: boolean][] = [
    [150, 140, 100, 0, true], // the first time above the target
    [140, 140, 100, 0, false],
    [100, 140, 500, 0, false], // under the target: never
    [150, 0, 100, 0, false], // 0: off
    [150, 140, 100 + HEAP_GROWTH_MB - 1, 100, false], // idle with its caches above the target: nothing to gain
    [150, 140, 100 + HEAP_GROWTH_MB, 100, true], // garbage being made: collect
  ];
  for (const [rss, target, heap, after, collect] of cases) expect([rss, target, heap, after, shouldCollect(rss, target, heap, after)]).toEqual([rss, target, heap, after, collect]);
});

test("above the target it collects at each check while garbage is made, once when none is; target 0 never collects", async () => {
  let heap = 100;
  const busy = startMemoryGovernor(140, { rssMb: () => 200, heapMb: () => heap, collect: () => void (heap = 100) });
  const garbage = setInterval(() => (heap = 150), 100); // 50 MB of garbage between checks
  const idle = startMemoryGovernor(140, { rssMb: () => 200, heapMb: () => 100, collect: () => {} });
  const off = startMemoryGovernor(0);
  try {
    await Bun.sleep(1_100);
    expect(busy.collections()).toBeGreaterThanOrEqual(3);
    expect(idle.collections()).toBe(1);
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
