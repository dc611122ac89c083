/**
 * The tide station database in a worker thread (see ./station-database.ts for the protocol). Loading it costs
 * ~100 MB of heap; the thread is ended when idle, which gives that memory back.
 */
import { workerData } from "node:worker_threads";
import type { StationWorkerData, StationRequest, StationReply } from "./station-database";

const { port, signal } = workerData as StationWorkerData;
const answered = new Int32Array(signal);

/** Posts the reply, then wakes the caller (which may be blocked in Atomics.wait). */
function reply(message: StationReply): void {
  port.postMessage(message);
  Atomics.add(answered, 0, 1);
  Atomics.notify(answered, 0);
}

try {
  const engine = await import("./engine");
  reply({ kind: "ready", stations: engine.stationCount() });
  port.on("message", (request: StationRequest) => {
    try {
      if (request.kind === "choose") reply({ kind: "chosen", results: request.spots.map(({ spot, override }) => engine.choose(spot, override)) });
      else reply({ kind: "records", records: request.ids.map((id) => engine.stationRecord(id)) });
    } catch (err) {
      reply({ kind: "error", message: String((err as Error)?.message ?? err) });
    }
  });
} catch (err) {
  reply({ kind: "error", message: `the tide database did not load: ${String((err as Error)?.message ?? err)}` });
}
