/** The server's memory governor (src/ops/memory.ts): collects while above its target, never at 0. */
import { expect, test } from "bun:test";
import { startMemoryGovernor } from "../src/ops/memory";
import { loadConfig } from "../src/config";

test("above the target it collects about once per check; target 0 never collects", async () => {
  const above = startMemoryGovernor(1); // any process is above 1 MB
  const off = startMemoryGovernor(0);
  try {
    await Bun.sleep(900);
    expect(above.collections()).toBeGreaterThanOrEqual(2);
    expect(above.collections()).toBeLessThanOrEqual(4);
    expect(off.collections()).toBe(0);
  } finally {
    above.stop();
    off.stop();
  }
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
