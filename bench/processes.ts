/** Child processes of the benchmark: servers that announce their port on stdout, and their memory. */
import { readFileSync } from "node:fs";
import { notMeasured, type Section } from "./report";

export interface Child {
  url: string;
  pid: number;
  /** Resident set size now, in MB (from /proc/PID/status). */
  rssMb(): number;
  stop(): Promise<void>;
}

export function rssMbOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** Spawns `cmd` and waits until it prints "listening <port>". */
export async function spawnListening(cmd: string[], timeoutMs = 20_000): Promise<Child> {
  const proc = Bun.spawn(cmd, { stdout: "pipe", stderr: "inherit" });
  let out = "";
  const decoder = new TextDecoder();
  // Keep draining stdout for the child's whole life so it never blocks on a full pipe.
  void (async () => {
    for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) out += decoder.decode(chunk);
  })();
  const deadline = Date.now() + timeoutMs;
  let port: string | undefined;
  while (!(port = /listening (\d+)/.exec(out)?.[1])) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill();
      throw new Error(`${cmd.join(" ")} did not start:\n${out}`);
    }
    await Bun.sleep(10);
  }
  return {
    url: `http://127.0.0.1:${port}`,
    pid: proc.pid,
    rssMb: () => rssMbOf(proc.pid),
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
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
