/** Timing helpers for the in-process micro-benchmarks. */

export interface Timing {
  count: number;
  meanUs: number;
  p50Us: number;
  p99Us: number;
  maxUs: number;
}

export function summarize(samplesNs: number[]): Timing {
  const sorted = Float64Array.from(samplesNs).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! / 1000;
  const total = sorted.reduce((a, b) => a + b, 0);
  return { count: sorted.length, meanUs: total / sorted.length / 1000, p50Us: at(50), p99Us: at(99), maxUs: sorted[sorted.length - 1]! / 1000 };
}

/** Runs `fn` once per input (after a warm-up pass over the first inputs) and times each call. */
export function timeEach<T>(inputs: readonly T[], fn: (input: T) => unknown, warmup = Math.min(1000, inputs.length)): Timing {
  for (let i = 0; i < warmup; i++) fn(inputs[i]!);
  const samples = new Array<number>(inputs.length);
  for (let i = 0; i < inputs.length; i++) {
    const start = Bun.nanoseconds();
    fn(inputs[i]!);
    samples[i] = Bun.nanoseconds() - start;
  }
  return summarize(samples);
}
