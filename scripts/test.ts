export {};
/**
 * Runs the whole suite with `bun test` and ends with the line CI reads: `N passed, N failed`.
 * Exits non-zero when any test failed or none ran. Extra arguments go to `bun test` (e.g. a file filter).
 */
// bunfig.toml's `[test] timeout` is not a bun setting (the default stayed 5 s): the flag is what applies it.
const proc = Bun.spawn([process.execPath, "test", "--timeout", "60000", ...process.argv.slice(2)], {
  stdout: "inherit",
  stderr: "pipe",
  env: { ...process.env, FORCE_COLOR: "0" },
});
// bun test writes its report to stderr: echo it and keep it for the counts.
let report = "";
const decoder = new TextDecoder();
for await (const chunk of proc.stderr) {
  const text = decoder.decode(chunk);
  report += text;
  process.stderr.write(text);
}
const code = await proc.exited;
const count = (word: string) => Number(/^\s*(\d+) (\w+)$/m.exec(report.split("\n").filter((l) => l.trim().endsWith(` ${word}`)).at(-1) ?? "")?.[1] ?? 0);
const passed = count("pass");
const failed = count("fail") + (code !== 0 && count("fail") === 0 ? 1 : 0);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
