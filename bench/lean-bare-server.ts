/**
 * The leaner yardstick: like bare-server.ts, a Bun.serve answering recorded requests with the exact bytes the real
 * server produced, but with each answer's Headers built once and the Map keyed by the whole URL, so a request
 * costs one lookup and one Response: the least JavaScript that can send these bytes.
 * Usage: bun bench/lean-bare-server.ts RECORDINGS.json — prints "listening <port>" on stdout.
 */
import type { Recording } from "./recordings";

const file = process.argv[2];
if (!file) throw new Error("usage: bun bench/lean-bare-server.ts RECORDINGS.json");
const recordings = (await Bun.file(file).json()) as Recording[];
const answers = recordings.map((r) => ({ path: r.path, status: r.status, headers: new Headers(r.headers), body: Buffer.from(r.bodyBase64, "base64") }));
const byUrl = new Map<string, (typeof answers)[number]>();

const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(req) {
    const hit = byUrl.get(req.url);
    if (!hit) return new Response("not recorded", { status: 404 });
    return new Response(hit.body, { status: hit.status, headers: hit.headers });
  },
});
for (const answer of answers) byUrl.set(`http://127.0.0.1:${server.port}${answer.path}`, answer);
console.log(`listening ${server.port}`);
