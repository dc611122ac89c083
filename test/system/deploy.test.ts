/**
 * deploy/: the systemd unit passes `systemd-analyze verify` (skipped, saying so, where systemd-analyze is
 * missing), the Dockerfile has the shape the README promises, and `surfcast healthcheck` (its HEALTHCHECK) tells
 * a serving server from none.
 */
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, ROOT, tempDir } from "../support/env";
import { startServer } from "../support/binary";

const unit = readFileSync(join(ROOT, "deploy/surfcast.service"), "utf8");

test("deploy/surfcast.service: hardened, and systemd-analyze verify accepts it", () => {
  for (const line of ["User=surfcast", "ProtectSystem=strict", "ReadWritePaths=/var/lib/surfcast", "Restart=on-failure", "KillSignal=SIGTERM", "Environment=HOST=127.0.0.1", "NoNewPrivileges=yes"]) {
    expect(unit).toContain(line);
  }
  if (!Bun.which("systemd-analyze")) {
    console.warn("SKIPPED: systemd-analyze is not installed; deploy/surfcast.service not verified");
    return;
  }
  // The same unit, pointing at this build's binary (verify checks that ExecStart exists).
  const copy = join(tempDir("unit"), "surfcast.service");
  writeFileSync(copy, unit.replaceAll("/usr/local/bin/surfcast", BINARY));
  const r = Bun.spawnSync(["systemd-analyze", "verify", copy], { stderr: "pipe", stdout: "pipe" });
  const complaints = r.stderr
    .toString()
    .split("\n")
    // A container without systemd as PID 1 has no surfcast user or running manager: not the unit's fault.
    .filter((l) => l.trim() && !/Failed to (connect|initialize)|user.*surfcast|System has not been booted/i.test(l));
  expect(complaints).toEqual([]);
});

test("deploy/Dockerfile: multi-stage, small non-root base, a data volume, HOST=0.0.0.0, a HEALTHCHECK", () => {
  const file = readFileSync(join(ROOT, "deploy/Dockerfile"), "utf8");
  expect(file.match(/^FROM /gm)).toHaveLength(2);
  expect(file).toContain("FROM gcr.io/distroless/cc-debian12:nonroot");
  expect(file).toContain("VOLUME /data");
  expect(file).toContain("HOST=0.0.0.0");
  expect(file).toMatch(/HEALTHCHECK .*surfcast", "healthcheck"/);
});

test("surfcast healthcheck: 0 when the server answers /healthz, 1 (one line) when nothing listens", async () => {
  const server = await startServer();
  try {
    const ok = Bun.spawnSync([BINARY, "healthcheck", "--url", `${server.url}/healthz`]);
    expect(ok.exitCode).toBe(0);
  } finally {
    await server.stop();
  }
  const down = Bun.spawnSync([BINARY, "healthcheck", "--url", "http://127.0.0.1:9/healthz"], { stderr: "pipe" });
  expect(down.exitCode).toBe(1);
  expect(down.stderr.toString().trim().split("\n")).toHaveLength(1);
});

test("SURFCAST_LOG_FORMAT=json: every log line is one JSON object with time, level and message", async () => {
  const server = await startServer({ env: { SURFCAST_LOG_FORMAT: "json" } });
  await server.stop();
  const lines = server.output().split("\n").filter((l) => l.startsWith("{"));
  expect(lines.length).toBeGreaterThanOrEqual(3); // listening, stopping, stopped
  for (const line of lines) expect(Object.keys(JSON.parse(line)).slice(0, 3)).toEqual(["time", "level", "message"]);
  expect(lines.map((l) => JSON.parse(l).message)).toContain("stopped cleanly");
  expect(server.output()).not.toMatch(/^\d{4}-\d\d-\d\dT\S+ (INFO|WARN|ERROR) /m);
});

test(".dockerignore keeps data directories and node_modules out of the image's build context; git ignores var-demo/", () => {
  const ignored = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n");
  for (const entry of ["node_modules/", "dist/", "var/", "var-*/", "*.db", ".test-tmp/"]) expect(ignored).toContain(entry);
  const check = Bun.spawnSync(["git", "check-ignore", "-q", "var-demo/surfcast.db"], { cwd: ROOT });
  expect(check.exitCode).toBe(0);
});

test("compose.yaml (README, Several servers): PostgreSQL 15, Redis 7, two nodes of deploy/Dockerfile on both, Caddy on 8080", () => {
  type Service = { image?: string; build?: { dockerfile: string }; environment?: Record<string, string>; ports?: string[]; hostname?: string; healthcheck?: { test: string[] } };
  const compose = Bun.YAML.parse(readFileSync(join(ROOT, "compose.yaml"), "utf8")) as { services: Record<string, Service> };
  const { postgres, redis, node1, node2, caddy } = compose.services;
  expect(postgres?.image).toBe("postgres:15");
  expect(redis?.image).toBe("redis:7");
  for (const [name, node] of [["node1", node1], ["node2", node2]] as const) {
    expect(node?.build?.dockerfile).toBe("deploy/Dockerfile");
    expect(node?.hostname).toBe(name);
    expect(node?.environment?.SURFCAST_DATABASE_URL).toMatch(/^postgres:\/\/[^@]+@postgres:5432\//);
    expect(node?.environment?.SURFCAST_REDIS_URL).toBe("redis://redis:6379");
    expect(node?.environment?.HOST).toBe("0.0.0.0");
    expect(node?.healthcheck?.test).toEqual(["CMD", "/usr/local/bin/surfcast", "healthcheck"]);
  }
  expect(caddy?.ports).toEqual(["8080:8080"]);
});

test("deploy/Caddyfile and deploy/haproxy.cfg balance over both nodes, check /healthz and retry only reads; haproxy -c accepts its file", () => {
  const caddyfile = readFileSync(join(ROOT, "deploy/Caddyfile"), "utf8");
  expect(caddyfile).toContain("reverse_proxy node1:8080 node2:8080");
  expect(caddyfile).toContain("health_uri /healthz");
  expect(caddyfile).toMatch(/lb_retry_match \{\s*method GET HEAD\s*\}/);
  const haproxy = join(ROOT, "deploy/haproxy.cfg");
  const config = readFileSync(haproxy, "utf8");
  for (const line of ["option httpchk GET /healthz", "server node1 node1:8080", "server node2 node2:8080", "http-request disable-l7-retry unless METH_GET"]) expect(config).toContain(line);
  if (!Bun.which("haproxy")) {
    console.warn("SKIPPED: haproxy is not installed; deploy/haproxy.cfg not checked with haproxy -c");
    return;
  }
  const r = Bun.spawnSync(["haproxy", "-c", "-f", haproxy], { stderr: "pipe", stdout: "pipe" });
  expect(r.stderr.toString() + r.stdout.toString()).toContain("Configuration file is valid");
  expect(r.exitCode).toBe(0);
});
