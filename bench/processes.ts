/** Child processes of the benchmark: servers that announce their port on stdout, and their memory. */
import { readFileSync } from "node:fs";
import { notMeasured, type Section } from "./report";

export interface Child {
  url: string;
  pid: number;
  proc: ReturnType<typeof Bun.spawn>;
  /** What the child printed so far (stdout, and stderr when `keepStderr`). */
  output(): string;
  /** Resident set size now, in MB (from /proc/PID/status). */
  rssMb(): number;
  stop(): Promise<void>;
}

/** A field of /proc/PID/status in MB (NaN when absent: an exited process has no memory fields). */
const statusMb = (status: string, field: string): number => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN) / 1024;

const statusOf = (pid: number): string => readFileSync(`/proc/${pid}/status`, "utf8");

export function rssMbOf(pid: number): number {
  return statusMb(statusOf(pid), "VmRSS");
}

/** The two parts of a process's RSS, in MB: anonymous memory (heap, allocator) and pages of mapped files (its code). */
export function rssPartsOf(pid: number): { anonMb: number; fileMb: number } {
  const status = statusOf(pid);
  return { anonMb: statusMb(status, "RssAnon"), fileMb: statusMb(status, "RssFile") };
}

export interface SpawnOptions {
  timeoutMs?: number;
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** Keep stderr with the output (a server's log) instead of passing it through. */
  keepStderr?: boolean;
  /** A pipe to the child's stdin (bench/week-server.ts takes its steps there). */
  stdin?: boolean;
}

/** Spawns `cmd` and waits until it prints "listening <port>" (a harness server) or "serving on http://…:<port>" (`serve`). */
export async function spawnListening(cmd: string[], { timeoutMs = 20_000, env = {}, keepStderr = false, stdin = false }: SpawnOptions = {}): Promise<Child> {
  const proc = Bun.spawn(cmd, { env: { ...process.env, ...env }, stdin: stdin ? "pipe" : "ignore", stdout: "pipe", stderr: keepStderr ? "pipe" : "inherit" });
  let out = "";
  const decoder = new TextDecoder();
  // Keep draining the pipes for the child's whole life so it never blocks on a full one.
  for (const stream of keepStderr ? [proc.stdout, proc.stderr] : [proc.stdout])
    void (async () => {
      for await (const chunk of stream as ReadableStream<Uint8Array>) out += decoder.decode(chunk);
    })();
  const deadline = Date.now() + timeoutMs;
  let port: string | undefined;
  while (!(port = /(?:listening |serving on http:\/\/[^:]+:)(\d+)/.exec(out)?.[1])) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill();
      throw new Error(`${cmd.join(" ")} did not start:\n${out}`);
    }
    await Bun.sleep(10);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: proc.pid,
    proc,
    output: () => out,
    rssMb: () => rssMbOf(proc.pid),
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/** Clock ticks per second of /proc/PID/stat's times (USER_HZ: 100 on Linux). */
const TICKS_PER_SECOND = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

/** CPU time a process has used so far (user + system), in seconds, from /proc/PID/stat. */
export function cpuSecondsOf(pid: number): number {
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/**
 * Samples a process's RSS every `everyMs` until stopped; returns the peak and the median of the samples, in MB
 * (the median is the steady level: the peak includes garbage the collector has not returned yet).
 */
export function sampleRss(pid: number, everyMs = 200): { stop(): { peak: number; median: number } } {
  const samples: number[] = [];
  const take = () => {
    try {
      const mb = rssMbOf(pid);
      if (Number.isFinite(mb)) samples.push(mb); // an exited (zombie) process has no VmRSS
    } catch {
      /* process gone */
    }
  };
  take();
  const timer = setInterval(take, everyMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      const sorted = [...samples].sort((a, b) => a - b);
      return { peak: sorted.at(-1) ?? 0, median: sorted[Math.floor(sorted.length / 2)] ?? 0 };
    },
  };
}

/**
 * A benchmark section measured by `script` in a process of its own (it prints the Section as JSON), so its timings
 * are not those of whatever the harness did before; "not measured" when the script fails.
 */
export async function sectionInOwnProcess(title: string, script: string, args: string[]): Promise<Section> {
  const proc = Bun.spawn([process.execPath, script, ...args], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(proc.stdout).text();
  const code = await proc.exited;
  return code === 0 ? (JSON.parse(out) as Section) : notMeasured(title, `${script.replace(/^.*\/bench\//, "bench/")} exited ${code}`);
}
