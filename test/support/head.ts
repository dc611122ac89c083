/**
 * HEAD against GET for the same target: the status and Content-Length a GET's body has, and nothing of the body on
 * the wire (read over a raw socket, which shows what the server sent).
 */
import { expect } from "bun:test";
import { rawRequest } from "./raw-http";

export async function expectHeadLikeGet(baseUrl: string, target: string, headers: Record<string, string> = {}): Promise<void> {
  const get = await fetch(baseUrl + target, { headers });
  const body = new Uint8Array(await get.arrayBuffer());
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  const head = await rawRequest(Number(new URL(baseUrl).port), `HEAD ${target} HTTP/1.1\r\nHost: localhost\r\n${lines}Connection: close\r\n\r\n`);
  expect(head.status).toBe(get.status);
  expect(body.length).toBeGreaterThan(0);
  expect(head.headers["content-length"]).toBe(String(body.length));
  expect(head.headers["content-type"]).toBe(get.headers.get("content-type")!);
  expect(head.body).toBe("");
}
