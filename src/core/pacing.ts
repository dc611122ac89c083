/**
 * How a long job (the forecast refresh, the tide window pass) paces itself. The job says where its work can pause and
 * when what it made is garbage; the process that runs it decides what that costs: the server's pacer collects there
 * (ops/memory.ts), tests and tools take the plain one, which only lets the event loop run.
 */
import type { MaybePromise } from "./maybe-promise";

export interface Pacer {
  /** Between two stretches of CPU work: requests waiting are answered before the next. */
  pause(): Promise<void>;
  /** What the job made since the last call is garbage, little of it kept: the young generation can be collected. */
  dropYoung(): void;
  /** What the job kept over its last batches is garbage: the whole heap can be collected. */
  dropAll(): void;
  /** Before the first of several batches: what came before the job (and its code) need not stay through them. */
  beforeBatches(): MaybePromise<unknown>;
}

/** Lets the event loop run: requests waiting are answered before a long job's next step. */
export const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Pauses, and leaves memory to the engine. */
export const plainPacer: Pacer = {
  pause: yieldToEventLoop,
  dropYoung() {},
  dropAll() {},
  beforeBatches() {},
};
