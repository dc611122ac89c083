/**
 * The PostgreSQL stores of the account side (access, console, embeds) answer as the SQLite ones: the same calls
 * against a fresh database of each give equal results. Beyond that, what several servers on one database rely on:
 * two servers creating keys for one account at once never pass its cap, their usage flushes add up exactly, and a
 * write is heard by every server's change feed.
 */
import { afterEach, expect, test } from "bun:test";
import { postgresAccessStore, seedPostgresPlans } from "../../src/access/postgres-store";
import { seedPlans, sqliteAccessStore } from "../../src/access/sqlite-store";
import type { AccessStore, AccountRecord, NewKey } from "../../src/access/store";
import { closeDatabase, openDatabase } from "../../src/db";
import { closePostgres, openPostgres, type PgDb } from "../../src/db/postgres";
import { ChangeFeed, type ChangeTopic } from "../../src/db/postgres/changes";
import { tempDir } from "../support/env";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../support/postgres";

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

/** A fresh SQLite data directory and a fresh PostgreSQL database with the plans seeded, closed and dropped after the test. */
async function freshDatabases() {
  const sqlite = openDatabase(tempDir("pg-access-stores"));
  closing.push(async () => closeDatabase(sqlite));
  seedPlans(sqlite);
  const database = await createTestDatabase();
  closing.push(() => database.drop());
  const postgres = await anotherPool(database);
  await seedPostgresPlans(postgres);
  return { sqlite, postgres, database };
}

/** A pool of its own on `database`, as another server would have (small: the PostgreSQL server is shared). */
async function anotherPool(database: TestDatabase): Promise<PgDb> {
  const pool = await openPostgres(database.url(), { max: 4 });
  closing.push(() => closePostgres(pool));
  return pool;
}

/** A step of a parity sequence: one call on a store, made alike on both sides. */
type Step<S> = [name: string, call: (store: S) => Promise<unknown>];

/** Runs the steps in order on both stores and expects each answer (or refusal) of PostgreSQL to equal SQLite's. */
async function expectSameAnswers<S>(steps: readonly Step<S>[], sqlite: S, postgres: S): Promise<void> {
  const answer = (call: Promise<unknown>) => call.then(comparable, (err: unknown) => ({ refused: err instanceof Error ? err.message : String(err) }));
  for (const [i, [name, call]] of steps.entries()) {
    const step = `${i}: ${name}`;
    expect({ step, answer: await answer(call(postgres)) }).toEqual({ step, answer: await answer(call(sqlite)) });
  }
}

/** Maps as arrays sorted by key: neither store promises their order. */
function comparable(value: unknown): unknown {
  return value instanceof Map ? [...value].sort(([a], [b]) => (String(a) < String(b) ? -1 : 1)) : value;
}

const T0 = Date.UTC(2025, 0, 1);
const DAY = "2025-01-01";

const newKey = (id: string, createdAt: number): NewKey => ({ id, name: `key ${id}`, hash: `hash-${id}`, prefix: `sk_${id}`, createdAt });

/** A key rule like accounts.ts's: a unique name among the active keys, and no more active keys than the cap. */
function keyRule(name: string) {
  return (account: AccountRecord, activeNames: readonly string[]) => {
    if (activeNames.includes(name)) throw new Error(`a key named ${name} exists`);
    if (activeNames.length >= (account.maxKeys ?? 2)) throw new Error(`${account.email} has ${activeNames.length} keys`);
  };
}

/** Resolves when `feed` hears a change to `topic`. */
const heard = (feed: ChangeFeed, topic: ChangeTopic) => new Promise<void>((resolve) => feed.subscribe(topic, resolve));

describeWithPostgres("the PostgreSQL stores of the account side", () => {
  test("the access store: accounts, plans, keys, revocation and usage, as on SQLite", async () => {
    const { sqlite, postgres } = await freshDatabases();
    const steps: Step<AccessStore>[] = [
      ["no accounts", (s) => s.listAccounts()],
      ["insert an account", (s) => s.insertAccount({ email: "ana@example.com", plan: "starter", dailyLimit: null, minuteLimit: null, maxKeys: null, createdAt: T0, admin: false })],
      ["insert a second", (s) => s.insertAccount({ email: "bo_b@example.com", plan: "pro", dailyLimit: 50_000, minuteLimit: 900, maxKeys: 3, createdAt: T0 + 1, admin: true })],
      ["a duplicate e-mail", (s) => s.insertAccount({ email: "ana@example.com", plan: "growth", dailyLimit: null, minuteLimit: null, maxKeys: null, createdAt: T0 + 2, admin: false })],
      ["insert a third", (s) => s.insertAccount({ email: "Zoe.b@example.com".toLowerCase(), plan: "growth", dailyLimit: null, minuteLimit: null, maxKeys: null, createdAt: T0 + 4, admin: false })],
      ["by e-mail", (s) => s.accountByEmail("bo_b@example.com")],
      ["by e-mail, unknown", (s) => s.accountByEmail("nobody@example.com")],
      ["by id", (s) => s.accountById(1)],
      ["by id, unknown", (s) => s.accountById(999)],
      ["a page of all", (s) => s.accountsPage({ offset: 1, limit: 1 })],
      ["a page matching an underscore literally", (s) => s.accountsPage({ query: "O_B", offset: 0, limit: 10 })],
      ["a page matching a percent sign literally", (s) => s.accountsPage({ query: "%", offset: 0, limit: 10 })],
      ["a page matching a dot", (s) => s.accountsPage({ query: ".b@", offset: 0, limit: 10 })],
      ["change a plan and a limit", (s) => s.updateAccount("ana@example.com", { plan: "growth", maxKeys: 3 })],
      ["change nothing", (s) => s.updateAccount("ana@example.com", {})],
      ["change an unknown account", (s) => s.updateAccount("nobody@example.com", { admin: true })],
      ["a key", (s) => s.createKey("ana@example.com", newKey("k1", T0 + 10), keyRule("key k1"))],
      ["a second key", (s) => s.createKey("ana@example.com", newKey("k2", T0 + 11), keyRule("key k2"))],
      ["a name taken", (s) => s.createKey("ana@example.com", { ...newKey("k3", T0 + 12), name: "key k1" }, keyRule("key k1"))],
      ["a third key", (s) => s.createKey("ana@example.com", newKey("k3", T0 + 12), keyRule("key k3"))],
      ["over the cap", (s) => s.createKey("ana@example.com", newKey("k4", T0 + 13), keyRule("key k4"))],
      ["a key of another account", (s) => s.createKey("bo_b@example.com", newKey("b1", T0 + 14), keyRule("key b1"))],
      ["a key of an unknown account", (s) => s.createKey("nobody@example.com", newKey("n1", T0 + 15), keyRule("key n1"))],
      ["accounts with their active keys", (s) => s.listAccounts()],
      ["revoke a key", (s) => s.revokeKey("k2", T0 + 20, () => {})],
      ["revoke it again: the check refuses", (s) => s.revokeKey("k2", T0 + 21, (key) => { if (key.revokedAt !== null) throw new Error("revoked already"); })],
      ["revoke an unknown key", (s) => s.revokeKey("nope", T0 + 22, () => {})],
      ["a key in place of the revoked one", (s) => s.createKey("ana@example.com", newKey("k4", T0 + 23), keyRule("key k4"))],
      ["a key by id", (s) => s.keyById("k2")],
      ["a key by id, unknown", (s) => s.keyById("nope")],
      ["a key id by hash, revoked", (s) => s.keyIdByHash("hash-k2")],
      ["a key id by hash, unknown", (s) => s.keyIdByHash("hash-nope")],
      ["the keys of an account", (s) => s.keysOf("ana@example.com")],
      ["the keys of an unknown account", (s) => s.keysOf("nobody@example.com")],
      ["the active keys", (s) => s.activeKeys().then((keys) => keys.toSorted((a, b) => (a.key.id < b.key.id ? -1 : 1)))],
      ["disable an account", (s) => s.setDisabled("bo_b@example.com", true)],
      ["disable an unknown account", (s) => s.setDisabled("nobody@example.com", true)],
      ["a page with a disabled account", (s) => s.accountsPage({ offset: 0, limit: 10 })],
      ["enable it again", (s) => s.setDisabled("bo_b@example.com", false)],
      ["no usage yet", (s) => s.countsByDay(["k1"], DAY)],
      [
        "a flush, one counter twice",
        (s) =>
          s.saveUsage(
            [
              { keyId: "k1", day: DAY, endpoint: "forecast", count: 3 },
              { keyId: "k1", day: DAY, endpoint: "spots", count: 1 },
              { keyId: "k1", day: DAY, endpoint: "forecast", count: 2 },
              { keyId: "b1", day: DAY, endpoint: "forecast", count: 7 },
              { keyId: "k3", day: "2024-12-31", endpoint: "tides", count: 4 },
            ],
            [
              { keyId: "k1", recent: "[1,2]", updatedAt: T0 + 30 },
              { keyId: "k1", recent: "[1,2,3]", updatedAt: T0 + 31 },
            ],
          ),
      ],
      ["a second flush", (s) => s.saveUsage([{ keyId: "k1", day: DAY, endpoint: "forecast", count: 10 }, { keyId: "k3", day: DAY, endpoint: "now", count: 1 }], [{ keyId: "b1", recent: "[9]", updatedAt: T0 + 40 }])],
      ["an empty flush", (s) => s.saveUsage([], [])],
      ["a burst window", (s) => s.burstWindow("k1")],
      ["another", (s) => s.burstWindow("b1")],
      ["none", (s) => s.burstWindow("k2")],
      ["counts by day", (s) => s.countsByDay(["k1", "k3", "b1"], "2024-12-01")],
      ["counts by day from today", (s) => s.countsByDay(["k1", "k3"], DAY)],
      ["counts by day of no keys", (s) => s.countsByDay([], DAY)],
      ["last used days", (s) => s.lastUsedDays(["k1", "k2", "k3"])],
      ["day totals by key", (s) => s.dayTotalsByKey(["k1", "k3", "b1", "k2"], DAY)],
      ["day totals by account", (s) => s.dayTotalsByAccount([1, 2, 3, 999], DAY)],
      ["day totals by account, no accounts", (s) => s.dayTotalsByAccount([], DAY)],
    ];
    await expectSameAnswers(steps, sqliteAccessStore(sqlite), postgresAccessStore(postgres));
  });

  test("two servers creating keys for one account at once take turns: exactly the cap succeeds", async () => {
    const { postgres: first, database } = await freshDatabases();
    const second = await anotherPool(database);
    const [one, two] = [postgresAccessStore(first), postgresAccessStore(second)];
    await one.insertAccount({ email: "ana@example.com", plan: "starter", dailyLimit: null, minuteLimit: null, maxKeys: 3, createdAt: T0, admin: false });
    const attempts = Array.from({ length: 12 }, (_, i) => (i % 2 === 0 ? one : two).createKey("ana@example.com", newKey(`k${i}`, T0 + i), keyRule(`key k${i}`)));
    const outcomes = await Promise.allSettled(attempts);
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(3);
    expect(outcomes.filter((o) => o.status === "rejected").map((o) => (o as PromiseRejectedResult).reason.message)).toEqual(Array(9).fill("ana@example.com has 3 keys"));
    expect((await two.accountByEmail("ana@example.com"))?.activeKeys).toBe(3);
  });

  test("two servers flushing the same counters at once add up exactly, whatever order their rows come in", async () => {
    const { postgres: first, database } = await freshDatabases();
    const second = await anotherPool(database);
    const stores = [postgresAccessStore(first), postgresAccessStore(second)];
    const keyIds = Array.from({ length: 40 }, (_, i) => `key-${String(i).padStart(2, "0")}`);
    const flush = (store: AccessStore) =>
      store.saveUsage(
        keyIds.toSorted(() => Math.random() - 0.5).flatMap((keyId) => [{ keyId, day: DAY, endpoint: "forecast", count: 1 }, { keyId, day: DAY, endpoint: "spots", count: 2 }]),
        keyIds.map((keyId) => ({ keyId, recent: "[]", updatedAt: T0 })),
      );
    const rounds = 15;
    await Promise.all(stores.flatMap((store) => Array.from({ length: rounds }, () => flush(store))));
    const expected = new Map(keyIds.map((keyId) => [keyId, 2 * rounds * 3]));
    expect(await stores[0]!.dayTotalsByKey(keyIds, DAY)).toEqual(expected);
    expect(await stores[1]!.countsByDay(keyIds, DAY)).toEqual([
      { day: DAY, endpoint: "forecast", count: 2 * rounds * keyIds.length },
      { day: DAY, endpoint: "spots", count: 2 * rounds * keyIds.length * 2 },
    ]);
  });

  test("a change to keys or accounts is heard by another server's change feed; revoking a key is heard by its embeds too", async () => {
    const { postgres: first, database } = await freshDatabases();
    const second = await anotherPool(database);
    const feed = await ChangeFeed.start(second, database.url());
    closing.push(() => feed.stop());
    const store = postgresAccessStore(first);

    let access = heard(feed, "access");
    await store.insertAccount({ email: "ana@example.com", plan: "starter", dailyLimit: null, minuteLimit: null, maxKeys: null, createdAt: T0, admin: false });
    await access;
    access = heard(feed, "access");
    await store.createKey("ana@example.com", newKey("k1", T0), () => {});
    await access;
    access = heard(feed, "access");
    const embeds = heard(feed, "embeds");
    await store.revokeKey("k1", T0 + 1, () => {});
    await Promise.all([access, embeds]);
    access = heard(feed, "access");
    await store.setDisabled("ana@example.com", true);
    await access;
  });
});
