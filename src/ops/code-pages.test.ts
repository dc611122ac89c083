import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { droppableMappings, releaseCodePages } from "./code-pages";

const BIN = "/opt/surfcast/bin/surfcast";

/** One mapping of /proc/PID/smaps: its head line and the fields that matter here. */
function mapping(range: string, perms: string, path: string, anonymousKb: number): string {
  return `${range} ${perms} 00000000 08:01 1234                       ${path}\nSize:               1024 kB\nRss:                 512 kB\nAnonymous:        ${anonymousKb} kB\nLocked:                0 kB\n`;
}

test.each([
  ["the code of the executable", mapping("400000-800000", "r-xp", BIN, 0), [[0x400000n, 0x800000n]]],
  ["its read-only data", mapping("800000-900000", "r--p", BIN, 0), [[0x800000n, 0x900000n]]],
  ["read-only data the loader relocated (copied-on-write pages)", mapping("800000-900000", "r--p", BIN, 8), []],
  ["its writable data", mapping("900000-a00000", "rw-p", BIN, 0), []],
  ["another file's code", mapping("7f0000000000-7f0000100000", "r-xp", "/usr/lib/x86_64-linux-gnu/libc.so.6", 0), []],
  ["an anonymous mapping", mapping("7f0000200000-7f0000300000", "rw-p", "", 0), []],
  ["a file whose name only starts like the executable's", mapping("400000-800000", "r-xp", `${BIN}.old`, 0), []],
] as const)("droppable: %s", (_what, smaps, expected) => {
  expect(droppableMappings(smaps, BIN).map((m) => [m.start, m.end])).toEqual(expected.map((r) => [...r]));
});

test("droppable: several mappings, each judged by its own fields", () => {
  const smaps = mapping("400000-800000", "r-xp", BIN, 0) + mapping("800000-900000", "r--p", BIN, 4) + mapping("900000-a00000", "r--p", BIN, 0);
  expect(droppableMappings(smaps, BIN)).toEqual([
    { start: 0x400000n, end: 0x800000n },
    { start: 0x900000n, end: 0xa00000n },
  ]);
});

/** The process's resident pages backed by files, in kB (/proc/self/status). */
function rssFileKb(): number {
  return Number(/RssFile:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"))![1]);
}

test.skipIf(process.platform !== "linux")("the release takes this process's code pages out of its resident size, and the code runs on", async () => {
  const before = rssFileKb();
  const droppedMb = await releaseCodePages();
  const after = rssFileKb();
  expect(droppedMb).toBeGreaterThan(10); // the runtime's executable is tens of MB
  expect(after).toBeLessThan(before - 5 * 1024);
  // The dropped pages come back from the file as the code runs.
  expect(JSON.parse(JSON.stringify({ still: "running" }))).toEqual({ still: "running" });
});
