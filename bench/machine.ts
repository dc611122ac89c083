/** The machine a benchmark ran on: written at the top of RESULTS.md, because numbers mean nothing without it. */
import { cpus, loadavg, totalmem } from "node:os";
import { readFileSync } from "node:fs";

export interface Machine {
  nproc: number;
  cpuModel: string;
  memoryGb: number;
  bunVersion: string;
  kernel: string;
  date: string;
  /** 1-minute load average when the run started: the machine is shared, so say how busy it was. */
  loadAverage: number;
}

export function describeMachine(): Machine {
  let cpuModel = cpus()[0]?.model ?? "unknown";
  try {
    cpuModel = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? cpuModel;
  } catch {
    /* not Linux: keep os.cpus() */
  }
  const nproc = Number(Bun.spawnSync(["nproc"]).stdout.toString().trim()) || cpus().length;
  let kernel = "unknown";
  try {
    kernel = readFileSync("/proc/sys/kernel/osrelease", "utf8").trim();
  } catch {
    /* not Linux */
  }
  return { nproc, cpuModel, memoryGb: totalmem() / 2 ** 30, bunVersion: Bun.version, kernel, date: new Date().toISOString(), loadAverage: loadavg()[0] ?? NaN };
}

export function renderMachine(m: Machine): string {
  return [
    `- Date: ${m.date}`,
    `- CPU: ${m.cpuModel}, nproc = ${m.nproc}`,
    `- Memory: ${m.memoryGb.toFixed(1)} GB`,
    `- Bun: ${m.bunVersion}; Linux ${m.kernel}`,
    `- Load average (1 min) at start: ${m.loadAverage.toFixed(2)} (shared machine: other work competes for the same cores)`,
  ].join("\n");
}
