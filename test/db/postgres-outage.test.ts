/** The outage log (src/db/postgres/outage.ts): one warning when calls start failing, one line when they work again. */
import { expect, test } from "bun:test";
import { outageLog } from "../../src/db/postgres/outage";

test("failures in a row are one warning; the first call that works after them is one line with the time down; calls that work are silent", () => {
  let now = 0;
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => (lines.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    const outage = outageLog("feed", () => now);
    const steps: ["failed" | "worked", number][] = [
      ["worked", 0],
      ["failed", 1000],
      ["failed", 2000],
      ["failed", 30_000],
      ["worked", 61_000],
      ["worked", 62_000],
      ["failed", 70_000],
    ];
    for (const [step, at] of steps) {
      now = at;
      if (step === "failed") outage.failed(new Error(`refused at ${at}`));
      else outage.worked();
    }
  } finally {
    process.stderr.write = write;
  }
  expect(lines.map((line) => line.replace(/^\S+ /, "").trim())).toEqual([
    'WARN  feed: PostgreSQL does not answer; retrying until it does error="refused at 1000"',
    "INFO  feed: PostgreSQL answers again downSeconds=60",
    'WARN  feed: PostgreSQL does not answer; retrying until it does error="refused at 70000"',
  ]);
});
