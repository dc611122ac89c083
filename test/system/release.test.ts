/**
 * The linux-arm64 release binary (Raspberry Pi 4/5, Graviton, Ampere), cross-compiled the way `make release`
 * builds it and run under qemu-user: --version, then `serve` answers /healthz and a spot search. The account and
 * key are made by this machine's binary on the same data directory (one database format for every platform).
 * Skips, saying so, where qemu-user or the arm64 loader is missing (`make test` installs them on Debian).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createKey } from "../support/binary";
import { ROOT, tempDir } from "../support/env";

const QEMU = "/usr/bin/qemu-aarch64-static";
const LOADER_ROOT = "/usr/aarch64-linux-gnu";
const available = existsSync(QEMU) && existsSync(join(LOADER_ROOT, "lib/ld-linux-aarch64.so.1"));
if (!available) console.warn(`release.test: skipped — ${QEMU} or ${LOADER_ROOT} is missing (apt-get install qemu-user-static libc6-arm64-cross)`);

const binary = join(tempDir("release"), "surfcast-linux-arm64");
let server: ReturnType<typeof Bun.spawn> | undefined;

afterAll(async () => {
  server?.kill("SIGTERM");
  await server?.exited;
});

describe.skipIf(!available)("linux-arm64 release binary under qemu-user", () => {
  test("builds, prints its version, serves /healthz and a search", async () => {
    const built = Bun.spawnSync([process.execPath, join(ROOT, "scripts/build.ts")], { env: { ...process.env, BUILD_TARGET: "bun-linux-arm64", OUTFILE: binary }, stderr: "pipe" });
    expect(built.exitCode, built.stderr.toString()).toBe(0);
    const file = Bun.spawnSync(["file", binary]).stdout.toString();
    if (file) expect(file).toContain("aarch64");

    const version = Bun.spawnSync([QEMU, "-L", LOADER_ROOT, binary, "--version"], { stdout: "pipe", stderr: "pipe" });
    expect(version.exitCode).toBe(0);
    expect(version.stdout.toString().trim()).toMatch(/^\d+\.\d+\.\d+$/);

    const dataDir = tempDir("release-data");
    const key = createKey(dataDir, "pi@example.com", "starter");
    server = Bun.spawn([QEMU, "-L", LOADER_ROOT, binary, "--data-dir", dataDir, "serve", "--port", "0", "--no-scheduler"], { stdout: "pipe", stderr: "pipe" });
    let out = "";
    const decoder = new TextDecoder();
    let url: string | undefined;
    for await (const chunk of server.stdout as ReadableStream<Uint8Array>) {
      out += decoder.decode(chunk);
      url = /Surfcast is serving on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) break;
    }
    expect(url).toBeDefined();
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: "ok" });
    const search = await fetch(`${url}/v1/spots?q=pipeline&limit=1`, { headers: { "X-API-Key": key } });
    expect(search.status).toBe(200);
    expect(((await search.json()) as { id: string }[])[0]!.id).toBe("pipeline");
  }, 120_000);
});
