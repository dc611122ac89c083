/**
 * Forecast pictures on the console's keys page (in-process, no browser): create one for a key with the page's
 * CSRF token, its <iframe> snippet, a mistake shown on the page, ownership (another account's embed is a 404),
 * CSRF refusal, and switching it off (its page answers 404 at once).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "./support/inprocess";
import { ConsoleClient, text } from "./support/console-client";
import { issueInvitation } from "../src/console/invitations";

const PASSWORD = "a long enough password";
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
}, 30_000);
afterAll(() => server.close());

async function owner(email: string): Promise<ConsoleClient> {
  const link = issueInvitation(server.app.db, server.app.clock, server.url, { email, plan: "pro" }).url;
  const client = new ConsoleClient(server.url);
  await client.get(link);
  expect((await client.post(link, { password: PASSWORD, confirm: PASSWORD })).status).toBe(303);
  await client.get("/console/keys");
  expect((await client.post("/console/keys", { name: "website" })).status).toBe(201);
  return client;
}

const keyIdIn = (body: string) => /<option value="(key_[0-9a-f]+)"/.exec(body)![1]!;

test("create, copy the snippet, switch off", async () => {
  const shop = await owner("shop-console@example.com");
  const keys = await shop.get("/console/keys");
  expect(text(keys.body)).toContain("Forecast pictures for your site and shop TV");
  const keyId = keyIdIn(keys.body);

  const wrong = await shop.post("/console/embeds", { key: keyId, spots: "pipeline, atlantis-reef", origins: "", units: "metric", theme: "light" });
  expect(wrong.status).toBe(400);
  expect(text(wrong.body)).toContain('no spot with id "atlantis-reef"');
  expect(wrong.body).toContain('value="pipeline, atlantis-reef"'); // what was typed is kept

  const made = await shop.post("/console/embeds", { key: keyId, spots: "pipeline, supertubos", origins: "https://shop.example\nhttp://localhost:8080", units: "imperial", theme: "dark" });
  expect(made.status).toBe(303);
  expect(made.location).toBe("/console/keys?notice=embed-created#embeds");
  const listed = await shop.get("/console/keys?notice=embed-created");
  const url = new RegExp(`${server.app.config.publicUrl}/embed/([A-Za-z0-9_-]{22})`).exec(listed.body)!;
  expect(url).not.toBeNull();
  const id = url[1]!;
  expect(text(listed.body)).toContain(`<iframe src="${url[0]}" title="Surf forecast"`);
  expect(text(listed.body)).toContain("https://shop.example, http://localhost:8080");
  const embed = server.app.embeds.servable(id)!.embed;
  expect(embed).toMatchObject({ spots: ["pipeline", "supertubos"], units: "imperial", theme: "dark", origins: ["https://shop.example", "http://localhost:8080"] });
  expect((await fetch(`${server.url}/embed/${id}`)).status).toBe(200);

  // Another account sees nothing of it and cannot switch it off; a POST without the token is refused.
  const other = await owner("other-console@example.com");
  expect((await other.get(`/console/embeds/${id}/revoke`)).status).toBe(404);
  expect((await other.post(`/console/embeds/${id}/revoke`, {})).status).toBe(404);
  expect((await other.post("/console/embeds", { key: keyId, spots: "pipeline" })).status).toBe(400);
  expect((await shop.post(`/console/embeds/${id}/revoke`, {}, { csrf: null })).status).toBe(403);
  expect((await fetch(`${server.url}/embed/${id}`)).status).toBe(200);

  const confirm = await shop.get(`/console/embeds/${id}/revoke`);
  expect(confirm.status).toBe(200);
  expect(text(confirm.body)).toContain("Switch off the forecast picture of pipeline, supertubos ?");
  const off = await shop.post(`/console/embeds/${id}/revoke`, {});
  expect(off.status).toBe(303);
  expect((await fetch(`${server.url}/embed/${id}`)).status).toBe(404);
  expect((await shop.get(`/console/embeds/${id}/revoke`)).status).toBe(404);
}, 30_000);
