/**
 * Records which functions a running `surfcast serve` uses, for Bun's profile-guided bytecode layout
 * (`compile.bytecodeOrder`, see scripts/build.ts): the bytecode a server runs is placed together at the front of the
 * binary, so a server touches ~4 MB fewer of the binary's pages (#22, bench/README.md "Memory").
 *
 * The run: a demo data dir (no upstream), a start without the scheduler (a restart's path: open, warm-up, listen),
 * demo forecasts for three spots refreshed by the CLI meanwhile, and one request to each main endpoint; then SIGTERM,
 * when the runtime writes the profile. `bun scripts/bytecode-order.ts BINARY OUT`; build.ts runs it when
 * dist/bytecode-order.txt is missing.
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

async function started(proc: Bun.Subprocess<"ignore", "pipe", "pipe">): Promise<string> {
  const decoder = new TextDecoder();
  let out = "";
  for await (const chunk of proc.stdout) {
    out += decoder.decode(chunk);
    const port = /serving on http:\/\/[^:]+:(\d+)/.exec(out)?.[1];
    if (port) return `http://127.0.0.1:${port}`;
  }
  throw new Error(`serve did not start: ${out}${await new Response(proc.stderr).text()}`);
}

function cli(binary: string, dataDir: string, args: string[]): string {
  const run = Bun.spawnSync([binary, "--data-dir", dataDir, ...args], { env: { ...process.env, SURFCAST_LOG_LEVEL: "warn" }, stdout: "pipe", stderr: "pipe" });
  if (run.exitCode !== 0) throw new Error(`surfcast ${args.join(" ")} failed: ${run.stderr.toString()}`);
  return run.stdout.toString().trim();
}

export async function recordBytecodeOrder(binary: string, out: string): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), "surfcast-bytecode-order-"));
  const serve = (env: Record<string, string>) =>
    Bun.spawn([binary, "--data-dir", dataDir, "serve", "--demo", "--no-scheduler", "--port", "0"], {
      env: { ...process.env, SURFCAST_LOG_LEVEL: "warn", ...env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
  try {
    // The first start seeds the catalog and makes the data dir a demo one; it is not recorded.
    const seeding = serve({});
    await started(seeding);
    seeding.kill("SIGTERM");
    await seeding.exited;
    cli(binary, dataDir, ["accounts", "create", "order@example.com", "--plan", "scale"]);
    const key = cli(binary, dataDir, ["keys", "create", "order@example.com", "--name", "order"]).split("\n").at(-1)!;

    const server = serve({ BUN_BYTECODE_ORDER_OUT: out });
    const url = await started(server);
    const get = async (path: string) => {
      const res = await fetch(url + path, { headers: { "X-API-Key": key, "Accept-Encoding": "br, gzip" } });
      if (!res.ok) throw new Error(`GET ${path} answered ${res.status} while recording`);
      return res.text();
    };
    await get("/healthz");
    const spots = JSON.parse(await get("/v1/spots?q=beach&limit=3")) as { id: string; lat: number; lng: number }[];
    const ids = spots.map((s) => s.id);
    cli(binary, dataDir, ["refresh", "--spots", ids.join(",")]);
    await Bun.sleep(1_500); // the server notices another process's writes within about a second
    for (const id of ids) {
      for (const path of [`/v1/spots/${id}`, `/v1/spots/${id}/forecast?days=7`, `/v1/spots/${id}/tides?days=3`, `/v1/spots/${id}/now`]) await get(path);
    }
    const { lat, lng } = spots[0]!;
    for (const path of [`/v1/spots/nearby?lat=${lat}&lng=${lng}&radius=50`, "/v1/spots?q=pipline", "/v1/usage", "/openapi.json"]) await get(path);
    server.kill("SIGTERM");
    if ((await server.exited) !== 0) throw new Error("serve did not stop cleanly while recording");
    if (statSync(out).size === 0) throw new Error("the runtime wrote an empty bytecode order");
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const [binary, out] = process.argv.slice(2);
  if (!binary || !out) {
    console.error("usage: bun scripts/bytecode-order.ts BINARY OUT");
    process.exit(2);
  }
  await recordBytecodeOrder(binary, out);
  console.log(`bytecode order recorded in ${out}`);
}
