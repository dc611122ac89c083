/**
 * HEAD answers carry what the GET's would (status, type and the body's length) and no body, on every kind of page:
 * the home page as JSON and HTML, the API reference, the OpenAPI document, health, a keyed /v1 answer and the
 * console's sign-in page. The embed page and the alerts' calendar feed are checked in their own tests.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../support/inprocess";
import { expectHeadLikeGet } from "../support/head";

let server: TestServer;
let key = "";

beforeAll(async () => {
  server = await startTestServer();
  key = await server.key();
}, 30_000);
afterAll(async () => {
  await server?.close();
});

const cases: [string, string, Record<string, string>][] = [
  ["the home page as JSON", "/", { Accept: "application/json" }],
  ["the home page as HTML", "/", { Accept: "text/html" }],
  ["the API reference", "/docs", {}],
  ["the OpenAPI document", "/openapi.json", {}],
  ["health", "/healthz", {}],
  ["the console's sign-in page", "/console/sign-in", {}],
];

for (const [what, target, headers] of cases) test(`HEAD ${target}: ${what}`, () => expectHeadLikeGet(server.url, target, headers));

test("HEAD of a keyed /v1 answer, found and not found", async () => {
  await expectHeadLikeGet(server.url, "/v1/spots/pipeline", { "X-API-Key": key });
  await expectHeadLikeGet(server.url, "/v1/spots/no-such-spot", { "X-API-Key": key });
  expect(key).not.toBe("");
});
