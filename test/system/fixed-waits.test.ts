/**
 * Tests wait on conditions (test/support/wait.ts: an event, a log line, a poll with a deadline), not on fixed
 * sleeps: on a busy machine a fixed wait is either flaky or slow. Counted from the test sources: a `Bun.sleep` or a
 * promise's `setTimeout` of a literal 200 ms or more. The few left wait on time itself, each with a comment saying
 * why nothing better exists.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/env";

const MOST_FIXED_WAITS = 5;
const LEAST_COUNTED_MS = 200;

/** `Bun.sleep(1_100)`, or `setTimeout(resolve, 300)` inside a promise: the literal milliseconds. */
const FIXED_WAIT = /Bun\.sleep\(\s*([\d_]+)\s*\)|setTimeout\(\s*[A-Za-z_$][\w$]*\s*,\s*([\d_]+)\s*\)/g;

/** Every fixed wait of at least `LEAST_COUNTED_MS` in `text`, as "line: source". */
function fixedWaits(text: string): string[] {
  const found: string[] = [];
  text.split("\n").forEach((line, i) => {
    for (const match of line.matchAll(FIXED_WAIT)) {
      if (Number((match[1] ?? match[2])!.replaceAll("_", "")) >= LEAST_COUNTED_MS) found.push(`${i + 1}: ${line.trim()}`);
    }
  });
  return found;
}

const testFiles = [
  ...[...new Bun.Glob("{src,test}/**/*.test.ts").scanSync(ROOT)],
  ...[...new Bun.Glob("test/support/*.ts").scanSync(ROOT)],
].filter((file) => file !== "test/system/fixed-waits.test.ts"); // this file's examples are not waits

test("what counts as a fixed wait", () => {
  expect(fixedWaits("await Bun.sleep(1_100);\nawait Bun.sleep(200); await Bun.sleep(199);")).toEqual(["1: await Bun.sleep(1_100);", "2: await Bun.sleep(200); await Bun.sleep(199);"]);
  expect(fixedWaits("await new Promise((r) => setTimeout(r, 300));")).toHaveLength(1);
  // A watchdog that kills a stuck process, a poll's interval, a computed wait: not fixed waits.
  expect(fixedWaits("setTimeout(() => proc.kill(), 20_000);\nawait waitFor(\"x\", check, 10_000, 200);\nawait Bun.sleep(wait);")).toEqual([]);
});

test(`at most ${MOST_FIXED_WAITS} fixed waits of ${LEAST_COUNTED_MS} ms or more in the tests`, () => {
  expect(testFiles.length).toBeGreaterThan(100);
  const waits = testFiles.flatMap((file) => fixedWaits(readFileSync(join(ROOT, file), "utf8")).map((wait) => `${file}:${wait}`));
  expect(waits.length, `fixed waits:\n${waits.join("\n")}`).toBeLessThanOrEqual(MOST_FIXED_WAITS);
});
