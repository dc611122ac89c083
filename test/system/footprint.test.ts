/**
 * Footprint (#22): forecast documents are stored compressed, and a database written before that keeps its
 * documents through the upgrade (the old JSON text rows are read as they are until a refresh rewrites them); an idle
 * server drops its caches and answers the same afterwards.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { closeDatabase, databasePath, openDatabase, reclaimSpace } from "../../src/db";
import { migrations } from "../../src/db/migrations.gen";
import { readDocument, writeDocuments } from "../../src/forecast/sqlite-store";
import { documentText } from "../../src/db/document-codec";
import { tempDir } from "../support/env";
import { createKey, startServer } from "../support/binary";
import { waitFor } from "../support/wait";

const DOC = JSON.stringify({ hours: [{ time: "2026-11-21T13:00:00Z", waveHeight: 1.2 }], daily: [{ date: "2026-11-21", uvIndexMax: 3 }] });

describe("compressed forecast documents", () => {
  test("a document is stored compressed and read back as the same JSON", () => {
    const db = openDatabase(tempDir("footprint-store"));
    db.$client.exec("INSERT INTO spots (id, hex_id, name, country, lat, lng) VALUES ('s1', 'aa', 'S1', 'PT', 39, -9)");
    const big = JSON.stringify({ hours: Array.from({ length: 168 }, (_, i) => ({ time: new Date(i * 3_600_000).toISOString(), waveHeight: (i % 30) / 10 })), daily: [] });
    writeDocuments(db, 5, [{ spotId: "s1", body: big }]);
    const raw = (db.$client.query("SELECT body FROM forecast_documents").get() as { body: Uint8Array }).body;
    expect(raw).toBeInstanceOf(Uint8Array);
    expect(raw.byteLength).toBeLessThan(big.length / 5);
    expect(documentText(raw)).toBe(big);
    expect(readDocument(db, "s1")).toEqual({ updatedAt: 5, body: big });
    expect(reclaimSpace(db)).toBe(0);
    expect((db.$client.query("PRAGMA auto_vacuum").get() as { auto_vacuum: number }).auto_vacuum).toBe(2);
    closeDatabase(db);
  });

  test("upgrade: JSON rows written by the previous schema survive the migration and are served as before", () => {
    const dir = tempDir("footprint-upgrade");
    // The database as the release before compression left it: every migration but the last.
    const old = new Database(databasePath(dir), { create: true, strict: true });
    old.exec("PRAGMA journal_mode = WAL");
    const internals = drizzle(old) as unknown as { dialect: { migrate(m: typeof migrations, s: unknown, c: object): void }; session: unknown };
    internals.dialect.migrate(migrations.slice(0, -1), internals.session, {});
    old.exec("INSERT INTO spots (id, hex_id, name, country, lat, lng) VALUES ('s1', 'aa', 'S1', 'PT', 39, -9)");
    old.query("INSERT INTO forecast_documents (spot_id, updated_at, body) VALUES ('s1', 7, ?)").run(DOC);
    old.close();

    const db = openDatabase(dir);
    expect((db.$client.query("SELECT type FROM pragma_table_info('forecast_documents') WHERE name = 'body'").get() as { type: string }).type.toLowerCase()).toBe("blob");
    expect(readDocument(db, "s1")).toEqual({ updatedAt: 7, body: DOC });
    // A refresh rewrites it compressed; the old text and the new bytes read the same.
    writeDocuments(db, 8, [{ spotId: "s1", body: DOC }]);
    expect(readDocument(db, "s1")).toEqual({ updatedAt: 8, body: DOC });
    closeDatabase(db);
  });
});

test("an idle server drops its caches and indexes once (logged) and its executable's code pages, health probes do not keep it busy, and it answers the same afterwards (compiled binary)", async () => {
  const dataDir = tempDir("footprint-idle");
  const server = await startServer({ dataDir, env: { SURFCAST_IDLE_RELEASE_S: "1", SURFCAST_LOG_LEVEL: "info" } });
  try {
    const key = createKey(dataDir);
    const paths = ["/v1/spots?q=pipe&limit=5", "/v1/spots/nearby?lat=21.66&lng=-158.05&radius=20&limit=5"];
    const ask = () => Promise.all(paths.map(async (p) => (await fetch(server.url + p, { headers: { "X-API-Key": key } })).text()));
    const before = await ask();
    expect(await ask()).toEqual(before); // kept answers
    const releases = () => (server.output().match(/idle: caches dropped/g) ?? []).length;
    // On a busy machine the key's creation (a CLI process) can outlast the idle time: count from the last request on.
    await Bun.sleep(100);
    const earlier = releases();
    const released = () => releases() - earlier;
    // A load balancer probing /healthz five times a second: not activity.
    await waitFor("the idle release", async () => {
      expect((await fetch(server.url + "/healthz")).status).toBe(200);
      return released() > 0;
    }, 10_000, 200);
    expect(released()).toBe(1);
    // The compiled binary reaches libc's madvise: tens of MB of its own mappings dropped (src/ops/code-pages.ts).
    expect(Number(/codeMappedMb=(\d+)/.exec(server.output())?.[1])).toBeGreaterThan(10);
    // Nothing shows the binary's idle checks from outside: a spell longer than the idle time and a check past it.
    await Bun.sleep(1_500);
    expect(released()).toBe(1); // once per quiet spell
    expect(await ask()).toEqual(before);
  } finally {
    await server.stop();
  }
});
