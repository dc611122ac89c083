/**
 * The yardstick: a bare Bun.serve that answers recorded requests with the exact bytes (status, headers and
 * body) the real server produced. Run as its own process so it competes for the CPU like the real one does.
 * Usage: bun bench/bare-server.ts RECORDINGS.json  — prints "listening <port>" on stdout.
 * A fetch handler with one Map lookup (not Bun's static routes, which bypass JavaScript entirely), so the
 * comparison is "our stack" vs "the least JavaScript a Bun server can run".
 */
import type { Recording } from "./recordings";

const file = process.argv[2];
if (!file) throw new Error("usage: bun bench/bare-server.ts RECORDINGS.json");
const recordings = (await Bun.file(file).json()) as Recording[];
const byPath = new Map(recordings.map((r) => [r.path, { status: r.status, headers: r.headers, body: Buffer.from(r.bodyBase64, "base64") }]));

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(req) {
    const url = req.url;
    const hit = byPath.get(url.slice(url.indexOf("/", url.indexOf("//") + 2)));
    if (!hit) return new Response("not recorded", { status: 404 });
    return new Response(hit.body, { status: hit.status, headers: hit.headers });
  },
});
console.log(`listening ${server.port}`);
