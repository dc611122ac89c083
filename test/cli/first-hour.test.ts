/**
 * What a newcomer and an operator trip over in their first hour, through the compiled binary: links that name the
 * port the server really answers on, a mistyped data directory, flag mistakes in one line, ports out of range,
 * the health check given a base URL, the help.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BINARY, tempDir } from "../support/env";
import { cli, createKey, startServer, type RunningServer } from "../support/binary";
import { apiFetch } from "../support/http";

function run(args: string[], env: Record<string, string> = {}) {
  const r = Bun.spawnSync([BINARY, ...args], { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

const oneLine = (text: string) => text.trim().split("\n").length === 1;

/** One server for the tests that only need one running (none of them stops it or depends on another's data). */
let shared: Promise<RunningServer> | undefined;
const sharedServer = () => (shared ??= startServer());
afterAll(async () => {
  await (await shared)?.stop();
});

describe("a mistyped data directory", () => {
  test.each([
    ["backup", ["backup", "x.db"]],
    ["status", ["status"]],
    ["keys list", ["keys", "list", "a@example.com"]],
    ["refresh", ["refresh", "--spots", "supertubos"]],
    ["spots check", ["spots", "check"]],
    ["embeds list", ["embeds", "list", "a@example.com"]],
    ["accounts list", ["accounts", "list"]],
  ])("%s on a missing directory exits 2 with one line and creates nothing", (_, args) => {
    const dir = join(tempDir("typo"), "typo-dir");
    const r = run(["--data-dir", dir, ...args]);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe(true);
    expect(r.stderr).toContain(`data directory ${dir} does not exist`);
    expect(existsSync(dir)).toBe(false);
  });

  test("an existing directory without a database is refused too", () => {
    const dir = tempDir("empty-dir");
    const r = run(["--data-dir", dir, "backup", join(dir, "copy.db")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("there is no Surfcast database in");
    expect(existsSync(join(dir, "surfcast.db"))).toBe(false);
  });

  test("accounts create, accounts invite and admins create start a new install", () => {
    for (const args of [["accounts", "create", "a@example.com", "--plan", "starter"], ["accounts", "invite", "b@example.com", "--plan", "starter"], ["admins", "create", "c@example.com"]]) {
      const dir = join(tempDir("install"), "new");
      const r = run(["--data-dir", dir, ...args]);
      expect(r.code).toBe(0);
      expect(existsSync(join(dir, "surfcast.db"))).toBe(true);
    }
  });

  test("a first start that fails (metrics port busy) leaves no directory behind", async () => {
    const busy = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    try {
      const dir = join(tempDir("failed-start"), "data");
      const proc = Bun.spawn([BINARY, "--data-dir", dir, "serve", "--port", "0", "--no-scheduler"], {
        env: { ...process.env, SURFCAST_METRICS: "on", SURFCAST_METRICS_PORT: String(busy.port) },
        stdout: "pipe",
        stderr: "pipe",
      });
      const code = await proc.exited;
      expect(code).not.toBe(0);
      expect(existsSync(dir)).toBe(false);
    } finally {
      busy.stop(true);
    }
  }, 30_000);
});

describe("links name the address the server answers at", () => {
  test("without SURFCAST_PUBLIC_URL, admins create and embeds list use the running server's address", async () => {
    const server = await sharedServer();
    const port = new URL(server.url).port;
    const r = cli(server.dataDir, ["admins", "create", "boss@example.com"], { SURFCAST_PUBLIC_URL: "" });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`http://localhost:${port}/console/invite/`);
    expect(r.stderr).not.toContain("warning");
  }, 30_000);

  test("SURFCAST_PUBLIC_URL wins; with neither, one warning says what the links start with", () => {
    const dir = tempDir("links");
    const unknown = cli(dir, ["accounts", "invite", "shop@example.com", "--plan", "starter"], { SURFCAST_PUBLIC_URL: "", PORT: "" });
    expect(unknown.code).toBe(0);
    expect(unknown.stderr).toContain("warning: SURFCAST_PUBLIC_URL is not set and no server has run on");
    expect(unknown.stdout).toContain("http://localhost:8080/console/invite/");
    const set = cli(dir, ["accounts", "invite", "shop@example.com"], { SURFCAST_PUBLIC_URL: "https://surf.example.com" });
    expect(set.stdout).toContain("https://surf.example.com/console/invite/");
    expect(set.stderr).not.toContain("warning");
  });
});

describe("operator mistakes in one line, exit 2", () => {
  // A data directory with a database, so each mistake is refused for itself (none of them writes to it).
  let dir: string;
  beforeAll(() => {
    dir = tempDir("mistake");
    expect(cli(dir, ["accounts", "create", "a@example.com", "--plan", "starter"]).code).toBe(0);
  });

  test.each([
    [["serve", "--prot", "41085"], {}, "unknown option --prot (did you mean --port?) (see surfcast serve --help)"],
    [["serve", "--port"], {}, "--port needs a value"],
    [["serve", "--port", "70000"], {}, "--port must be a port number from 0 to 65535"],
    [["serve"], { PORT: "70000" }, "PORT must be a port number from 0 to 65535"],
    [["serve"], { SURFCAST_CLIMATE_YEARS: "0" }, 'SURFCAST_CLIMATE_YEARS must be between 1 and 80, got "0"'],
    [["keys", "create", "a@example.com", "--nmae", "x"], {}, "unknown option --nmae (did you mean --name?)"],
    [["srve"], {}, 'unknown command "srve" (did you mean serve?)'],
  ] as [string[], Record<string, string>, string][])("%p", (args, env, message) => {
    const r = run(["--data-dir", dir, ...args], env);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe(true);
    expect(r.stderr).toContain(message);
    expect(r.stderr).not.toContain("    at ");
  });

  test("healthcheck takes the base URL serve prints", async () => {
    const server = await sharedServer();
    expect(run(["healthcheck", "--url", server.url]).code).toBe(0);
    expect(run(["healthcheck", "--url", `${server.url}/`]).code).toBe(0);
    expect(run(["healthcheck", "--url", `${server.url}/healthz`]).code).toBe(0);
  }, 30_000);

  test("the help lists spots check", () => {
    expect(run(["--help"]).stdout).toContain("spots check");
  });
});

describe("the bare address and units", () => {
  test("GET / sends a browser to the reference and the console, a client to /openapi.json", async () => {
    const server = await sharedServer();
    const page = await fetch(`${server.url}/`, { headers: { Accept: "text/html,application/xhtml+xml" } });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toStartWith("text/html");
    const html = await page.text();
    for (const href of ['href="/docs"', 'href="/console"', 'href="/openapi.json"']) expect(html).toContain(href);
    const client = await fetch(`${server.url}/`);
    expect(client.status).toBe(200);
    expect(await client.json()).toEqual({ name: "Surfcast", openapi: "/openapi.json", docs: "/docs", console: "/console", health: "/healthz" });
  }, 30_000);

  test("forecast and tides take units=metric or units=imperial; anything else is a 400 naming both", async () => {
    const server = await sharedServer();
    const key = createKey(server.dataDir);
    for (const path of ["/v1/spots/supertubos/forecast?units=feet", "/v1/spots/supertubos/tides?units=Imperial&days=2"]) {
      const res = await apiFetch(server.url + path, { headers: { "X-API-Key": key } });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("invalid_request");
      expect(body.error.message).toBe("Parameter 'units' must be one of metric, imperial.");
    }
    for (const units of ["metric", "imperial"]) {
      const res = await apiFetch(`${server.url}/v1/spots/supertubos/tides?units=${units}`, { headers: { "X-API-Key": key } });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { units: string }).units).toBe(units);
    }
  }, 30_000);
});
