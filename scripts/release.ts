/**
 * `make release`: the binary for every platform the appliance runs on, cross-compiled by Bun (each embeds the
 * same catalog, tide database and migrations as `dist/surfcast`), into dist/release/surfcast-<os>-<arch>, with a
 * SHA256SUMS file for `sha256sum -c`.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

/** Release name → Bun compile target. Baseline: x64 CPUs without AVX2 (many small VPSs). */
const RELEASE_TARGETS: Record<string, string> = {
  "linux-x64": "bun-linux-x64",
  "linux-x64-baseline": "bun-linux-x64-baseline",
  "linux-arm64": "bun-linux-arm64",
  "darwin-arm64": "bun-darwin-arm64",
};

const root = resolve(import.meta.dir, "..");
const outDir = join(root, "dist/release");
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });

const sums: string[] = [];
for (const [name, target] of Object.entries(RELEASE_TARGETS)) {
  const outfile = join(outDir, `surfcast-${name}`);
  const built = Bun.spawnSync([process.execPath, join(root, "scripts/build.ts")], {
    env: { ...process.env, BUILD_TARGET: target, OUTFILE: outfile },
    stdout: "inherit",
    stderr: "inherit",
  });
  if (built.exitCode !== 0) {
    console.error(`release: building ${name} (${target}) failed`);
    process.exit(1);
  }
  sums.push(`${createHash("sha256").update(readFileSync(outfile)).digest("hex")}  surfcast-${name}`);
}
// The build's linked source maps (the binary's and its tide worker's) are for debugging a local build, not release assets.
for (const file of readdirSync(outDir)) if (file.endsWith(".map")) rmSync(join(outDir, file));
writeFileSync(join(outDir, "SHA256SUMS"), sums.join("\n") + "\n");
console.log(`release: ${sums.length} binaries and SHA256SUMS in ${outDir}`);
