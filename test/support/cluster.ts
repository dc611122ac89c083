/**
 * Several `surfcast serve` nodes sharing one service, for one test file: a PostgreSQL database of its own (dropped at
 * the end) reached through a TCP relay the test can cut, a redis-server of its own on a free port (stopped and
 * started again at will), the fake Open-Meteo (which counts upstream calls), and N nodes of the compiled binary,
 * each with a data directory of its own and a fixed port, so a node restarted answers where it did before.
 *
 *   const cluster = await startCluster({ nodes: 3 });
 *   cluster.cli(["accounts", "create", "a@example.com", "--plan", "scale"]);
 *   await cluster.nodes[1]!.kill();           // kill -9
 *   await cluster.nodes[1]!.start();          // rejoins on its port
 *   const lb = cluster.balancer();            // round robin that retries a GET on the next node
 *   await cluster.close();
 *
 * Without redis-server (or PostgreSQL, see ./postgres.ts) the tests are skipped with one line saying why.
 */
import { answersPing } from "./redis";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe } from "bun:test";
import { cli, cliAsync, startServer, type CliResult, type RunningServer } from "./binary";
import { freePort, tempDir } from "./env";
import { startFakeOpenMeteo, type FakeOpenMeteo } from "./fake-open-meteo";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "./postgres";
import { startTcpProxy, type TcpProxy } from "./tcp-proxy";

const REDIS_SERVER = Bun.which("redis-server");
if (!REDIS_SERVER) console.warn("skipping the cluster tests: redis-server is not installed (scripts/services.sh installs it)");

/** `describe` when PostgreSQL answers and redis-server is installed, `describe.skip` otherwise. */
export const describeWithCluster = REDIS_SERVER ? describeWithPostgres : describe.skip;


/** A redis-server of the cluster's own: no persistence, so a stop loses its counters as a crashed Redis would. */
export interface RedisServer {
  url: string;
  running(): boolean;
  /** Starts it on its port and waits until it answers PING. */
  start(): Promise<void>;
  /** SIGTERM, and waits until the process is gone. */
  stop(): Promise<void>;
}

function redisServer(port: number): RedisServer {
  const url = `redis://127.0.0.1:${port}`;
  let proc: ReturnType<typeof Bun.spawn> | null = null;
  return {
    url,
    running: () => proc !== null,
    async start() {
      proc = Bun.spawn([REDIS_SERVER!, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdout: "ignore", stderr: "ignore" });
      for (const until = Date.now() + 5000; Date.now() < until; await Bun.sleep(20)) if (await answersPing(url)) return;
      throw new Error(`redis-server on port ${port} did not start`);
    },
    async stop() {
      if (!proc) return;
      proc.kill("SIGTERM");
      await proc.exited;
      proc = null;
    },
  };
}

/** One `serve` process of the cluster; it keeps its port and data directory across restarts. */
export interface ClusterNode {
  name: string;
  port: number;
  url: string;
  dataDir: string;
  /** The running process, or null while the node is down. */
  process(): RunningServer | null;
  /** The output of every run of this node, oldest first. */
  output(): string;
  start(): Promise<void>;
  /** A graceful stop (SIGTERM); answers the exit code. */
  stop(): Promise<number>;
  /** kill -9: no clean-up of any kind. */
  kill(): Promise<void>;
}

export interface ClusterOptions {
  nodes: number;
  /** Environment of every node, over the cluster's own (database, Redis, the fake upstream). */
  env?: Record<string, string>;
  /** serve's flags after --port and --host (default none: the scheduler runs). */
  args?: string[];
  /** A node's listening flags in place of `--port` (e.g. `--https` with its ports), and the URL it then answers at. */
  listen?: (name: string) => { args: string[]; url: string };
  /** Runs once the database, Redis and the fake upstream are up, before any node starts (e.g. importing spots). */
  prepare?: (cli: (args: string[]) => CliResult) => void | Promise<void>;
}

export interface Cluster {
  nodes: ClusterNode[];
  db: TestDatabase;
  /** The relay every node reaches PostgreSQL through: `cut()` takes the database away from this cluster only. */
  postgres: TcpProxy;
  redis: RedisServer;
  fake: FakeOpenMeteo;
  /** What every node and command is given (the database URL is the direct one, not the relay's). */
  env: Record<string, string>;
  /** A console command on the shared database (its own data directory, direct to PostgreSQL). */
  cli(args: string[]): CliResult;
  cliAsync(args: string[]): Promise<CliResult>;
  /** A round-robin HTTP balancer in this process over the cluster's nodes. */
  balancer(): Balancer;
  close(): Promise<void>;
}

export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  /** What is up so far, undone in reverse order at the end, or at once when a later step fails. */
  const teardown: (() => Promise<void> | void)[] = [];
  const close = async () => {
    for (const undo of teardown.splice(0).reverse()) await undo();
  };
  try {
    const db = await createTestDatabase("surfcast_cluster");
    teardown.push(() => db.drop());
    const direct = new URL(db.url());
    const postgres = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    teardown.push(() => postgres.close());
    const redis = redisServer(freePort());
    teardown.push(() => redis.stop());
    await redis.start();
    const fake = await startFakeOpenMeteo();
    teardown.push(() => fake.close());
    fake.setFirstDay(new Date().toISOString().slice(0, 10));

    const env = { SURFCAST_DATABASE_URL: db.url(), SURFCAST_REDIS_URL: redis.url, SURFCAST_OPEN_METEO_MARINE_URL: fake.url, SURFCAST_OPEN_METEO_FORECAST_URL: fake.url };
    const relayed = new URL(db.url());
    relayed.port = String(postgres.port);
    const nodeEnv = { ...env, SURFCAST_DATABASE_URL: relayed.href, ...options.env };
    const cliDir = tempDir("cluster-cli");
    const run = (args: string[]) => cli(cliDir, args, env);
    await options.prepare?.(run);

    const nodes = Array.from({ length: options.nodes }, (_, i) => clusterNode(String.fromCharCode(97 + i), nodeEnv, options.args ?? [], options.listen));
    teardown.push(() => Promise.all(nodes.map((node) => stopOrKill(node))).then(() => undefined));
    // Together, as a fleet starts: the migrations and the start-up jobs meet on the empty database.
    await Promise.all(nodes.map((node) => node.start()));
    return {
      nodes,
      db,
      postgres,
      redis,
      fake,
      env,
      cli: run,
      cliAsync: (args) => cliAsync(cliDir, args, env),
      balancer() {
        const balancer = startBalancer(nodes);
        teardown.push(() => balancer.close());
        return balancer;
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/** A `prepare` that imports `spots` as the whole catalog: the only thing in the database before the nodes start. */
export function importSpots(spots: readonly object[]): (cli: (args: string[]) => CliResult) => void {
  return (cli) => {
    const file = join(tempDir("cluster-spots"), "spots.json");
    writeFileSync(file, JSON.stringify(spots));
    const imported = cli(["spots", "import", file, "--replace"]);
    if (imported.code !== 0) throw new Error(`spots import failed: ${imported.stderr}`);
  };
}

/** A console command on the cluster's database that must succeed: its output, else an error with its own. */
export function cliOk(cluster: Cluster, args: string[]): string {
  const r = cluster.cli(args);
  if (r.code !== 0) throw new Error(`surfcast ${args.join(" ")} failed (${r.code}): ${r.stderr}`);
  return r.stdout;
}

/** A new account `email` (made with `accountFlags`) and a key of it. */
export function newClusterKey(cluster: Cluster, email: string, accountFlags: string[] = ["--plan", "scale"]): { id: string; key: string } {
  cliOk(cluster, ["accounts", "create", email, ...accountFlags]);
  return JSON.parse(cliOk(cluster, ["keys", "create", email, "--name", "cluster-test", "--json"])) as { id: string; key: string };
}

/** A node that does not stop within 10 s is killed, so a hung stop cannot hold the test run. */
async function stopOrKill(node: ClusterNode): Promise<void> {
  if (!node.process()) return;
  const killer = setTimeout(() => void node.kill(), 10_000);
  await node.stop();
  clearTimeout(killer);
}

function clusterNode(name: string, env: Record<string, string>, args: string[], listen?: ClusterOptions["listen"]): ClusterNode {
  const own = listen?.(name);
  const port = own ? Number(new URL(own.url).port) : freePort();
  const dataDir = tempDir(`cluster-${name}`);
  let current: RunningServer | null = null;
  /** Set while the test stops the node: an exit otherwise is a crash, whose output the suite's log must show. */
  let stopping = false;
  const earlier: string[] = [];
  const ended = () => {
    earlier.push(current!.output());
    current = null;
    stopping = false;
  };
  return {
    name,
    port,
    url: own?.url ?? `http://127.0.0.1:${port}`,
    dataDir,
    process: () => current,
    output: () => [...earlier, current?.output() ?? ""].join(""),
    async start() {
      if (current) throw new Error(`node ${name} is already running`);
      const started = await startServer({ dataDir, env, args: [...(own?.args ?? []), ...args], port: own ? null : port });
      current = started;
      void started.proc.exited.then((code) => {
        if (!stopping) console.error(`cluster node ${name} exited by itself (code ${code}, signal ${started.proc.signalCode}); the end of its output:\n${started.output().slice(-4000)}`);
      });
    },
    async stop() {
      if (!current) throw new Error(`node ${name} is not running`);
      stopping = true;
      const code = await current.stop("SIGTERM");
      ended();
      return code;
    },
    async kill() {
      if (!current) return;
      stopping = true;
      await current.stop("SIGKILL");
      ended();
    },
  };
}

/** What a balancer did: answers passed on, retries on another node, requests no node could answer. */
export interface Balancer {
  url: string;
  /** Answers passed on, by node name. */
  served: Map<string, number>;
  retries: number;
  /** Requests answered 502 because no node could be reached. */
  failed: number;
  close(): void;
}

/** How long a node whose connection failed is left out before it is tried again (a passive health check). */
const DOWN_MS = 1000;
/** Request headers not passed on: the hop's own, and Accept-Encoding, so an answer is passed on as it was made. */
const NOT_FORWARDED = ["host", "connection", "keep-alive", "accept-encoding", "content-length", "transfer-encoding"];
const NOT_RETURNED = ["connection", "keep-alive", "content-encoding", "content-length", "transfer-encoding"];

/**
 * What Caddy or HAProxy in front of the fleet does: round robin; a node whose connection fails (refused, reset, cut
 * before the whole answer) is left out for a moment and the request goes to the next node, for GET and HEAD (safe
 * to repeat) and for any request the node refused to connect (it never saw it). An HTTP answer, even a 5xx, is
 * passed on as it is.
 */
export function startBalancer(nodes: readonly ClusterNode[]): Balancer {
  let next = 0;
  const downUntil = new Map<string, number>();
  const served = new Map<string, number>();
  const stats = { retries: 0, failed: 0 };

  /** Every node once, from the next in turn, the ones recently down last. */
  const order = () => {
    const start = next++ % nodes.length;
    const turn = nodes.map((_, i) => nodes[(start + i) % nodes.length]!);
    const now = Date.now();
    return [...turn.filter((n) => (downUntil.get(n.name) ?? 0) <= now), ...turn.filter((n) => (downUntil.get(n.name) ?? 0) > now)];
  };

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const headers = new Headers(request.headers);
      for (const name of NOT_FORWARDED) headers.delete(name);
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      const repeatable = body === undefined;
      const tried = order();
      for (const [i, node] of tried.entries()) {
        if (i > 0) stats.retries++;
        try {
          const res = await fetch(node.url + url.pathname + url.search, { method: request.method, headers, body, redirect: "manual" });
          const payload = await res.arrayBuffer();
          const returned = new Headers(res.headers);
          for (const name of NOT_RETURNED) returned.delete(name);
          served.set(node.name, (served.get(node.name) ?? 0) + 1);
          return new Response(payload, { status: res.status, headers: returned });
        } catch (err) {
          downUntil.set(node.name, Date.now() + DOWN_MS);
          if (!repeatable && (err as { code?: string }).code !== "ConnectionRefused") break;
        }
      }
      stats.failed++;
      return Response.json({ error: { code: "internal", message: "no node answered" } }, { status: 502 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    served,
    get retries() {
      return stats.retries;
    },
    get failed() {
      return stats.failed;
    },
    close: () => void server.stop(true),
  };
}
