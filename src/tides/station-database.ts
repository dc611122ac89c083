/**
 * The tide station database, kept in a worker thread (./station-worker.ts) that starts on first use and ends after
 * a minute without calls, so its ~100 MB are only held while stations the build did not choose (./built-choices.ts)
 * are being chosen (a new import, a new station rule). Predictions never need it: they use stored records (./record.ts).
 *
 * Calls are synchronous, like the code that needs a station choice in the middle of a request or a refresh batch:
 * the caller posts its request on a MessagePort and waits on a shared counter the worker bumps after replying, then
 * takes the reply with `receiveMessageOnPort`. `load()` lets async callers (the window pass) wait for the database
 * without blocking the event loop.
 */
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import { log } from "../core/log";
import type { StationRecord } from "./record";
import type { RuleInput, StationChoice } from "./stations";

export interface StationWorkerData {
  port: MessagePort;
  /** One Int32: how many replies the worker has posted. */
  signal: SharedArrayBuffer;
}

export type StationRequest = { kind: "choose"; spots: { spot: RuleInput; override: boolean | null }[] } | { kind: "records"; ids: string[] };

export type StationReply =
  | { kind: "ready"; stations: number }
  | { kind: "chosen"; results: { choice: StationChoice; record: StationRecord | null }[] }
  | { kind: "records"; records: StationRecord[] }
  | { kind: "error"; message: string };

/** The worker ends after this long without a call. */
const IDLE_MS = 60_000;
/** Longest wait for one reply (the database load included) before the call fails. */
const REPLY_TIMEOUT_MS = 120_000;

interface Running {
  worker: Worker;
  port: MessagePort;
  replies: Int32Array;
  /** Set by the worker's first message: the database loaded (or the error that stopped it). */
  loaded: { error?: string } | null;
  startedAt: number;
}

export class StationDatabase {
  private running: Running | null = null;
  private idle: ReturnType<typeof setTimeout> | null = null;

  /** `workerUrl`: ./station-worker.ts, resolved by the composition root (see `STATION_WORKER_URL` in src/app.ts). */
  constructor(
    private readonly workerUrl: URL,
    private readonly idleMs = IDLE_MS,
  ) {}

  /** Whether the worker (and the database in it) is in memory now. */
  get active(): boolean {
    return this.running !== null;
  }

  /** Starts the worker if needed and resolves once it has loaded the database, without blocking the event loop. */
  async load(): Promise<void> {
    const running = this.start();
    // Someone waits for the load: keep the process alive until it is done (the worker is unref'd otherwise).
    running.worker.ref();
    try {
      const deadline = Date.now() + REPLY_TIMEOUT_MS;
      while (!running.loaded) {
        const seen = Atomics.load(running.replies, 0);
        const received = receiveMessageOnPort(running.port);
        if (received) this.adopt(running, received.message as StationReply);
        else if (Date.now() > deadline) throw this.noAnswer();
        else await Atomics.waitAsync(running.replies, 0, seen, 50).value;
      }
      if (running.loaded.error !== undefined) throw new Error(`tide station database: ${running.loaded.error}`);
    } finally {
      running.worker.unref();
    }
  }

  /** The station rule for each spot, with the chosen stations' records. */
  choose(spots: { spot: RuleInput; override: boolean | null }[]): { choice: StationChoice; record: StationRecord | null }[] {
    const reply = this.call({ kind: "choose", spots });
    if (reply.kind !== "chosen") throw new Error(`tide station worker: unexpected ${reply.kind} reply`);
    return reply.results;
  }

  /** The records of these stations (for choices stored before records were). */
  records(ids: string[]): StationRecord[] {
    const reply = this.call({ kind: "records", ids });
    if (reply.kind !== "records") throw new Error(`tide station worker: unexpected ${reply.kind} reply`);
    return reply.records;
  }

  /** Ends the worker now (shutdown); the next call starts a new one. */
  close(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    const running = this.running;
    this.running = null;
    if (running) void running.worker.terminate();
  }

  private start(): Running {
    if (this.running) return this.running;
    const { port1, port2 } = new MessageChannel();
    const signal = new SharedArrayBuffer(4);
    const worker = new Worker(this.workerUrl, { workerData: { port: port2, signal } satisfies StationWorkerData, transferList: [port2] });
    // Replies are only ever taken with receiveMessageOnPort (a 'message' listener would take them instead), and
    // neither the worker nor its port keeps the process alive: a command exits when its work is done.
    worker.unref();
    port1.unref();
    worker.on("error", (err) => log.error("tide station worker failed", { error: String(err) }));
    this.running = { worker, port: port1, replies: new Int32Array(signal), loaded: null, startedAt: performance.now() };
    return this.running;
  }

  /** Takes the worker's first message: the database loaded, or the error that stopped it. */
  private adopt(running: Running, message: StationReply): void {
    // The idle countdown starts once the load is over: a load slower than the idle time (a slow box) must not end its
    // own worker; a failed one is ended after it, so that a later call tries again.
    this.touch();
    if (message.kind === "ready") {
      running.loaded = {};
      log.info("tide database loaded", { ms: Math.round(performance.now() - running.startedAt), stations: message.stations });
    } else running.loaded = { error: message.kind === "error" ? message.message : `unexpected ${message.kind} message` };
  }

  private noAnswer(): Error {
    this.close();
    return new Error("tide station database: no answer from its worker");
  }

  /** One request and its reply, synchronously (see the module comment). */
  private call(request: StationRequest): StationReply {
    const running = this.start();
    const deadline = Date.now() + REPLY_TIMEOUT_MS;
    let seen = Atomics.load(running.replies, 0);
    running.port.postMessage(request);
    for (;;) {
      const received = receiveMessageOnPort(running.port);
      if (received) {
        const reply = received.message as StationReply;
        if (!running.loaded) {
          this.adopt(running, reply);
          if (reply.kind === "ready") continue;
        }
        this.touch();
        if (reply.kind === "error") throw new Error(`tide station database: ${reply.message}`);
        return reply;
      }
      const left = deadline - Date.now();
      if (left <= 0 || Atomics.wait(running.replies, 0, seen, left) === "timed-out") throw this.noAnswer();
      seen = Atomics.load(running.replies, 0);
    }
  }

  /** Restarts the idle countdown. */
  private touch(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      log.debug("tide database unloaded (idle)");
      this.close();
    }, this.idleMs);
    this.idle.unref();
  }
}
