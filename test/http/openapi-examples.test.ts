/**
 * The served OpenAPI document carries a realistic example for every response with a body (200s and errors), and
 * each example is valid against its own schema, with objects closed as for real responses (test/support/openapi.ts).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../support/inprocess";
import { ResponseValidator } from "../support/openapi";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
}, 30_000);
afterAll(() => server.close());

test("every response of every operation has an example that its schema accepts", async () => {
  const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as Record<string, any>;
  const validator = new ResponseValidator(document);
  expect(validator.exampleProblems()).toEqual([]);
  // The walk is not empty: 12 operations, each with a 200 and its errors (HEAD's have no body, so no example).
  const responses = Object.values<any>(document.paths).flatMap((item) => Object.keys(item.get.responses));
  expect(responses.filter((status) => status === "200")).toHaveLength(12);
  expect(responses.length).toBeGreaterThan(40);
});

test("an example that breaks its schema is caught", () => {
  const document = { openapi: "3.1.1", paths: { "/x": { get: { operationId: "x", responses: { 200: { description: "", content: { "application/json": { schema: { type: "object", properties: { a: { type: "integer" } } }, example: { a: "no", b: 1 } } } }, 404: { description: "", content: { "application/json": { schema: { type: "object" } } } } } } } } };
  const problems = new ResponseValidator(document).exampleProblems();
  expect(problems.some((p) => p.includes("x 200 example") && p.includes("/a"))).toBe(true);
  expect(problems.some((p) => p.includes("additional properties"))).toBe(true);
  expect(problems).toContain("x 404 example is missing");
});
