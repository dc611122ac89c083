/**
 * `surfcast embeds` through the compiled binary: create prints the public URL on its last line (and --json),
 * list and revoke, operator mistakes are one line and exit 2; a running server serves an embed the CLI created
 * and answers 404 within a second of the CLI revoking it (another process's write).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cli, startServer, type RunningServer } from "../support/binary";
import { tempDir } from "../support/env";
import { waitFor } from "../support/wait";

const PUBLIC = "https://surf.example.net";
const dataDir = tempDir("embeds-cli");
let keyId: string;
let server: RunningServer;

beforeAll(async () => {
  expect(cli(dataDir, ["accounts", "create", "shop@example.com", "--plan", "pro"]).code).toBe(0);
  const key = JSON.parse(cli(dataDir, ["keys", "create", "shop@example.com", "--name", "shop", "--json"]).stdout) as { id: string };
  keyId = key.id;
  server = await startServer({ dataDir, args: ["--no-scheduler"] });
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

const run = (...args: string[]) => cli(dataDir, ["embeds", ...args], { SURFCAST_PUBLIC_URL: PUBLIC });

test("--help", () => {
  const help = cli(dataDir, ["embeds", "--help"]);
  expect(help.code).toBe(0);
  expect(help.stdout).toContain("surfcast embeds create KEY_ID --spots");
  expect(cli(dataDir, ["--help"]).stdout).toContain("embeds ");
});

test("create prints the URL last, list shows it, revoke ends it", () => {
  const made = run("create", keyId, "--spots", "pipeline,supertubos", "--origin", "https://shop.example", "--origin", "http://localhost:8080", "--units", "imperial", "--theme", "dark", "--lang", "pt");
  expect(made.code).toBe(0);
  const url = made.stdout.trim().split("\n").at(-1)!;
  expect(url).toMatch(/^https:\/\/surf\.example\.net\/embed\/[A-Za-z0-9_-]{22}$/);
  const id = url.split("/").at(-1)!;

  const json = JSON.parse(run("create", keyId, "--spots", "pipeline", "--json").stdout) as { id: string; url: string; spots: string[]; origins: string[]; units: string; theme: string; lang: string };
  expect(json).toMatchObject({ spots: ["pipeline"], origins: [], units: "metric", theme: "light", lang: "en" });
  expect(json.url).toBe(`${PUBLIC}/embed/${json.id}`);

  const listed = JSON.parse(run("list", "shop@example.com", "--json").stdout) as { id: string; origins: string[]; lang: string; revokedAt: string | null }[];
  expect(listed.map((e) => e.id)).toEqual([id, json.id]);
  expect(listed[0]!.lang).toBe("pt");
  expect(listed[0]!.origins).toEqual(["https://shop.example", "http://localhost:8080"]);
  expect(run("list", "shop@example.com").stdout).toContain(url);

  const revoked = run("revoke", id);
  expect(revoked.code).toBe(0);
  expect(revoked.stdout).toContain(`revoked embed ${id}`);
  expect((JSON.parse(run("list", "shop@example.com", "--json").stdout) as { revokedAt: string | null }[])[0]!.revokedAt).not.toBeNull();
});

const mistakes: [string, string[], RegExp][] = [
  ["no --spots", ["create", "KEY"], /--spots is required/],
  ["unknown key", ["create", "key_ffffffffffffffff", "--spots", "pipeline"], /no key with id key_ffffffffffffffff/],
  ["unknown spot", ["create", "KEY", "--spots", "pipeline,atlantis-reef"], /no spot with id "atlantis-reef"/],
  ["a bad origin", ["create", "KEY", "--spots", "pipeline", "--origin", "shop.example/page"], /is not an origin/],
  ["bad units", ["create", "KEY", "--spots", "pipeline", "--units", "knots"], /--units must be metric or imperial/],
  ["a language it does not speak", ["create", "KEY", "--spots", "pipeline", "--lang", "nl"], /--lang must be en or es or fr or pt or de or it, got "nl"/],
  ["unknown embed", ["revoke", "nope"], /no embed with id nope/],
  ["unknown account", ["list", "nobody@example.com"], /nobody@example.com/],
];
for (const [name, args, message] of mistakes) {
  test(`mistake: ${name} → one line, exit 2`, () => {
    const r = run(...args.map((a) => (a === "KEY" ? keyId : a)));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });
}

test("the server serves what the CLI created and drops it within a second of its revocation", async () => {
  const made = cli(dataDir, ["embeds", "create", keyId, "--spots", "pipeline", "--json"], { SURFCAST_PUBLIC_URL: server.url });
  const { id } = JSON.parse(made.stdout) as { id: string };
  const res = await waitFor("the server to serve the new embed", async () => {
    const page = await fetch(`${server.url}/embed/${id}`);
    return page.status === 200 && page;
  });
  expect(await res.text()).toContain("Pipeline");
  expect(cli(dataDir, ["embeds", "revoke", id]).code).toBe(0);
  await waitFor("the revocation to show", async () => (await fetch(`${server.url}/embed/${id}`)).status === 404, 5_000);
}, 20_000);
