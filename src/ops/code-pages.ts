/**
 * Hands the pages of the server's own code back at idle. A busy spell pages in tens of MB of the executable (the
 * runtime's code and read-only data that the engine, its compilers and the HTTP server ran): clean pages read from
 * the file, which stay mapped, and so counted in the process's resident size, long after. Dropping them from the
 * mapping (madvise MADV_DONTNEED) costs nothing to keep: they stay in the kernel's page cache while it has room, and
 * the code that runs next faults its pages back in from there (or from the file). Only mappings of the executable
 * that are not writable and hold no page of their own (no copy-on-write page: relocated data, a debugger's
 * breakpoint) are dropped, so nothing written is ever lost. Linux only; elsewhere, or without a libc to ask, nothing
 * happens. See bench/README.md ("Memory").
 */
import { readlinkSync } from "node:fs";

/** madvise(2): the kernel may drop the range's pages; a private file mapping reads them from the file again. */
const MADV_DONTNEED = 4;

export interface CodeMapping {
  start: bigint;
  end: bigint;
}

/**
 * The mappings of `file` in `smaps` (the text of /proc/PID/smaps) that can be dropped: read-only, and without an
 * anonymous (copied-on-write) page.
 */
export function droppableMappings(smaps: string, file: string): CodeMapping[] {
  const found: CodeMapping[] = [];
  let current: (CodeMapping & { readOnly: boolean; ours: boolean }) | null = null;
  for (const line of smaps.split("\n")) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) (\S{4}) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      current = { start: BigInt(`0x${head[1]}`), end: BigInt(`0x${head[2]}`), readOnly: !head[3]!.includes("w"), ours: head[4] === file };
      continue;
    }
    const anonymous = /^Anonymous:\s+(\d+) kB/.exec(line);
    if (anonymous && current?.ours && current.readOnly && anonymous[1] === "0") found.push({ start: current.start, end: current.end });
  }
  return found;
}

type Madvise = (start: bigint, length: bigint, advice: number) => number;

let madvise: Madvise | null | undefined;

/** libc's madvise through bun:ffi, loaded at the first release; null where there is none (not Linux, no glibc). */
async function loadMadvise(): Promise<Madvise | null> {
  if (process.platform !== "linux") return null;
  try {
    const { dlopen } = await import("bun:ffi");
    const libc = dlopen("libc.so.6", { madvise: { args: ["u64", "u64", "i32"], returns: "i32" } });
    return (start, length, advice) => libc.symbols.madvise(start, length, advice) as number;
  } catch {
    return null;
  }
}

/** Drops the executable's clean code pages from this process's memory; the MB of mappings dropped (0: nothing done). */
export async function releaseCodePages(): Promise<number> {
  if (madvise === undefined) madvise = await loadMadvise();
  if (!madvise) return 0;
  let bytes = 0n;
  // The kernel's name for the file, as smaps writes it (process.execPath may be a symbolic link's).
  const executable = readlinkSync("/proc/self/exe");
  for (const { start, end } of droppableMappings(await Bun.file("/proc/self/smaps").text(), executable)) {
    if (madvise(start, end - start, MADV_DONTNEED) === 0) bytes += end - start;
  }
  return Number(bytes) / (1024 * 1024);
}
