/** Log lines cannot be forged, and floods are counted, not written line by line. */
import { describe, expect, test } from "bun:test";
import { escapeControls, formatLine, tally } from "./log";
import { validHost } from "../http/target";

const AT = new Date("2026-11-23T10:00:00Z");

describe("log lines", () => {
  test("controls in messages and fields are escaped; text from outside stays inside its field", () => {
    const cases: [string, Record<string, unknown> | undefined, string][] = [
      ["plain", undefined, "2026-11-23T10:00:00.000Z INFO  plain"],
      ["two\nlines", undefined, "2026-11-23T10:00:00.000Z INFO  two\\nlines"],
      ["clear \u001b[2J", undefined, "2026-11-23T10:00:00.000Z INFO  clear \\u001b[2J"],
      ["c1 \u009b2J", undefined, "2026-11-23T10:00:00.000Z INFO  c1 \\u009b2J"],
      ["m", { error: "x\n2026-11-23T10:00:00.000Z INFO  refresh done" }, '2026-11-23T10:00:00.000Z INFO  m error="x\\n2026-11-23T10:00:00.000Z INFO  refresh done"'],
      ["m", { error: "a\u001bb" }, '2026-11-23T10:00:00.000Z INFO  m error="a\\u001bb"'],
      ["m", { n: 3, word: "ok", empty: "" }, '2026-11-23T10:00:00.000Z INFO  m n=3 word=ok empty=""'],
      ["m", { "bad\nkey": 1 }, "2026-11-23T10:00:00.000Z INFO  m bad\\nkey=1"],
    ];
    for (const [message, fields, expected] of cases) expect(formatLine(AT, "info", message, fields)).toBe(expected);
  });

  test("long texts are cut", () => {
    const line = formatLine(AT, "warn", "m", { error: "x".repeat(5000) });
    expect(line.length).toBeLessThan(1100);
    expect(line).toContain("…(4000 more)");
    expect(line.split("\n")).toHaveLength(1);
  });

  test("escapeControls leaves printable text alone", () => {
    expect(escapeControls("Peniche — 2,5 m ☀")).toBe("Peniche — 2,5 m ☀");
    expect(escapeControls("\u2028\u2029\u007f")).toBe("\\u2028\\u2029\\u007f");
  });

  test("a tally writes one line per period with the count, however many events", async () => {
    const written: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      const count = tally("refused malformed requests", 50);
      for (let i = 0; i < 1000; i++) count();
      await Bun.sleep(120);
      count();
      await Bun.sleep(120);
    } finally {
      process.stderr.write = original;
    }
    const lines = written.filter((l) => l.includes("refused malformed requests"));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain("count=1000");
    expect(lines[1]).toContain("count=1");
  });
});

describe("Host validation", () => {
  test("names, addresses and ports a proxy may send pass; anything else does not", () => {
    const cases: [string, boolean][] = [
      ["a", true],
      ["api", true],
      ["api:80", true],
      ["my_upstream:8080", true],
      ["surf.example.com", true],
      ["surf.example.com.", true],
      ["127.0.0.1:8080", true],
      ["[::1]", true],
      ["[::1]:8080", true],
      ["[2001:db8::1]:443", true],
      ["", false],
      ["x/y", false],
      ["a b", false],
      ["a@b", false],
      ["a?b", false],
      ["a#b", false],
      ["[zz]", false],
      ["[::1", false],
      ["localhost:abc", false],
      ["localhost:0", false],
      ["localhost:65536", false],
      ["localhost:", false],
      [":80", false],
      ["-a", false],
    ];
    for (const [host, ok] of cases) expect([host, validHost(host)]).toEqual([host, ok]);
  });
});
