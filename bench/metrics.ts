/**
 * The cost of SURFCAST_METRICS=on on the request path: the server's fetch handler wrapped by Metrics.instrument
 * (endpoint label, status tally, latency buckets) against the same handler unwrapped, per request. Target: < 1 µs.
 * With metrics off the handler is not wrapped at all (cost 0 by construction).
 */
import type { App } from "../src/app";
import { Metrics } from "../src/ops/metrics";
import { fmt, type Section } from "./report";

const URLS = ["http://127.0.0.1:8080/v1/spots?q=super", "http://127.0.0.1:8080/v1/spots/supertubos/forecast?days=2", "http://127.0.0.1:8080/v1/spots/nearby?lat=1&lng=2", "http://127.0.0.1:8080/v1/usage"];

async function perCallNs(handler: (req: Request) => Response | Promise<Response>, requests: Request[], rounds: number): Promise<number> {
  const started = Bun.nanoseconds();
  for (let r = 0; r < rounds; r++) for (const req of requests) await handler(req);
  return (Bun.nanoseconds() - started) / (rounds * requests.length);
}

export async function metricsSection(app: App, quick: boolean): Promise<Section> {
  const response = new Response("{}");
  const plain = async (_req: Request) => response;
  const metrics = new Metrics(app);
  const wrapped = metrics.instrument(plain);
  const requests = Array.from({ length: 1000 }, (_, i) => new Request(URLS[i % URLS.length]!));
  const rounds = quick ? 50 : 300;
  await perCallNs(plain, requests, 20);
  await perCallNs(wrapped, requests, 20);
  // Best of three alternating runs each: the least disturbed by the other processes on the machine.
  let base = Infinity;
  let instrumented = Infinity;
  for (let i = 0; i < 3; i++) {
    base = Math.min(base, await perCallNs(plain, requests, rounds));
    instrumented = Math.min(instrumented, await perCallNs(wrapped, requests, rounds));
  }
  metrics.close();
  const costUs = (instrumented - base) / 1000;
  return {
    title: "Metrics on the request path",
    intro: "One async handler answering a cached Response, called directly and through `Metrics.instrument` (SURFCAST_METRICS=on), per request; best of three runs.",
    header: ["handler", "ns per request", "added µs", "target", "verdict"],
    rows: [
      ["plain (metrics off)", fmt.int(base), "—", "—", "—"],
      ["instrumented (metrics on)", fmt.int(instrumented), fmt.us(costUs), "< 1 µs", fmt.verdict(costUs < 1)],
    ],
  };
}
