/**
 * The PostgreSQL stores of the account side (access, console, embeds) answer as the SQLite ones: the same calls
 * against a fresh database of each give equal results. Beyond that, what several servers on one database rely on:
 * two servers creating keys for one account at once never pass its cap, their usage flushes add up exactly, and a
 * write is heard by every server's change feed.
 */
import { afterEach, expect, test } from "bun:test";
import { postgresAccessStore, seedPostgresPlans } from "../../src/access/postgres-store";
import { seedPlans, sqliteAccessStore } from "../../src/access/sqlite-store";
import type { AccessStore, AccountRecord, NewAccount, NewKey } from "../../src/access/store";
import { postgresConsoleStore } from "../../src/console/postgres-store";
import { sqliteConsoleStore } from "../../src/console/sqlite-store";
import type { AccountChange, ConsoleStore, LinkWithAccount } from "../../src/console/store";
import { closeDatabase, openDatabase, type Db } from "../../src/db";
import { closePostgres, openPostgres, type PgDb } from "../../src/db/postgres";
import { ChangeFeed, type ChangeTopic } from "../../src/db/postgres/changes";
import { drizzleEmbedStore } from "../../src/embed/drizzle-store";
import type { EmbedRecord, EmbedStore } from "../../src/embed/store";
import { tempDir } from "../support/env";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../support/postgres";
import { sqliteDialect } from "../../src/db/store-dialect";
import { postgresDialect } from "../../src/db/postgres/store-dialect";

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

/** The account side's stores on one database. */
interface Stores {
  access: AccessStore;
  console: ConsoleStore;
  embeds: EmbedStore;
}
const sqliteStores = (db: Db): Stores => ({ access: sqliteAccessStore(db), console: sqliteConsoleStore(db), embeds: drizzleEmbedStore(sqliteDialect(db)) });
const postgresStores = (db: PgDb): Stores => ({ access: postgresAccessStore(db), console: postgresConsoleStore(db), embeds: drizzleEmbedStore(postgresDialect(db)) });

const newAccount = (email: string, fields: Partial<NewAccount> = {}): NewAccount => ({ email, plan: "starter", dailyLimit: null, minuteLimit: null, maxKeys: null, createdAt: T0, admin: false, ...fields });

/** An invitation's change as invitations.ts makes it: a new account on a plan, or an existing one moved to it. */
const inviteTo = (email: string, plan: string | undefined, createdAt: number): AccountChange => ({
  create: () => {
    if (plan === undefined) throw new Error("a plan is required for a new account");
    return newAccount(email, { plan, createdAt });
  },
  update: (found) => (plan === undefined || plan === found.plan ? {} : { plan }),
});

/** A link as issued: valid for a day from `at`. */
const link = (token: string, at: number) => ({ tokenHash: `link-${token}`, createdAt: at, expiresAt: at + 86_400_000 });

/** The redemption rule of invitations.ts, in short: a used or expired link is a problem. */
const usable = (at: number) => (found: LinkWithAccount) => (found.link.usedAt !== null ? "used" : found.link.expiresAt <= at ? "expired" : null);

const session = (token: string, accountId: number, at: number) => ({ tokenHash: `session-${token}`, accountId, createdAt: at, lastSeenAt: at });
const noneExpired = { lastSeenBefore: 0, createdBefore: 0 };

const embed = (id: string, keyId: string, createdAt: number, fields: Partial<EmbedRecord> = {}): EmbedRecord => ({
  id,
  keyId,
  spots: ["carcavelos", "ericeira"],
  origins: ["https://surf.example.com", "http://localhost:8080"],
  units: "metric",
  theme: "light",
  lang: "en",
  createdAt,
  revokedAt: null,
  ...fields,
});

/** An embed rule like service.ts's: at most `active` switched on and `made` ever made. */
const embedCaps = (caps: { active: number; made: number }) => (counts: { active: number; made: number }) => {
  if (counts.active >= caps.active) throw new Error(`${counts.active} embeds switched on`);
  if (counts.made >= caps.made) throw new Error(`${counts.made} embeds made`);
};

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
    // What the other server reads once it has heard: the change itself.
    const seen = async () => {
      const account = await postgresAccessStore(second).accountByEmail("ana@example.com");
      return account && { activeKeys: account.activeKeys, disabled: account.disabled };
    };

    let access = heard(feed, "access");
    await store.insertAccount({ email: "ana@example.com", plan: "starter", dailyLimit: null, minuteLimit: null, maxKeys: null, createdAt: T0, admin: false });
    await access;
    expect(await seen()).toEqual({ activeKeys: 0, disabled: false });
    access = heard(feed, "access");
    await store.createKey("ana@example.com", newKey("k1", T0), () => {});
    await access;
    expect(await seen()).toEqual({ activeKeys: 1, disabled: false });
    access = heard(feed, "access");
    const embeds = heard(feed, "embeds");
    await store.revokeKey("k1", T0 + 1, () => {});
    await Promise.all([access, embeds]);
    expect(await seen()).toEqual({ activeKeys: 0, disabled: false });
    access = heard(feed, "access");
    await store.setDisabled("ana@example.com", true);
    await access;
    expect(await seen()).toEqual({ activeKeys: 0, disabled: true });
  });

  test("the console store: invitations, links, redemption, passwords and sessions, as on SQLite", async () => {
    const { sqlite, postgres } = await freshDatabases();
    const steps: Step<Stores>[] = [
      ["an invitation without a plan makes nothing", (s) => s.console.issueLink("ana@example.com", inviteTo("ana@example.com", undefined, T0), link("a0", T0))],
      ["so no account", (s) => s.access.accountByEmail("ana@example.com")],
      ["an invitation makes its account", (s) => s.console.issueLink("ana@example.com", inviteTo("ana@example.com", "starter", T0), link("a1", T0))],
      ["an account of its own", (s) => s.access.insertAccount(newAccount("bo@example.com", { createdAt: T0 + 1 }))],
      ["an invitation to an existing account changes it", (s) => s.console.issueLink("ana@example.com", inviteTo("ana@example.com", "pro", T0 + 10), link("a2", T0 + 10))],
      ["an invitation that changes nothing", (s) => s.console.issueLink("bo@example.com", inviteTo("bo@example.com", undefined, T0 + 11), link("b1", T0 + 11))],
      ["the older link, used up by the newer", (s) => s.console.link("link-a1")],
      ["the newer link", (s) => s.console.link("link-a2")],
      ["an unknown link", (s) => s.console.link("link-nope")],
      ["redeem a used-up link", (s) => s.console.redeemLink("link-a1", "argon2-1", T0 + 20, usable(T0 + 20))],
      ["redeem an unknown link", (s) => s.console.redeemLink("link-nope", "argon2-1", T0 + 20, usable(T0 + 20))],
      ["redeem an expired link", (s) => s.console.redeemLink("link-b1", "argon2-1", T0 + 2 * 86_400_000, usable(T0 + 2 * 86_400_000))],
      ["redeem the newer link", (s) => s.console.redeemLink("link-a2", "argon2-1", T0 + 21, usable(T0 + 21))],
      ["the link used", (s) => s.console.link("link-a2")],
      ["the password set", (s) => s.access.accountByEmail("ana@example.com")],
      ["a session", (s) => s.console.startSession(session("s1", 1, T0 + 30), noneExpired)],
      ["another", (s) => s.console.startSession(session("s2", 1, T0 + 31), noneExpired)],
      ["one of another account", (s) => s.console.startSession(session("s3", 2, T0 + 32), noneExpired)],
      ["read a session", (s) => s.console.session("session-s1")],
      ["touch it", (s) => s.console.touchSession("session-s1", T0 + 40)],
      ["read it touched", (s) => s.console.session("session-s1")],
      ["end one", (s) => s.console.endSession("session-s2")],
      ["it is gone", (s) => s.console.session("session-s2")],
      ["an unknown session", (s) => s.console.session("session-nope")],
      ["a session that expires the idle ones", (s) => s.console.startSession(session("s4", 1, T0 + 50), { lastSeenBefore: T0 + 35, createdBefore: 0 })],
      ["the idle one is gone", (s) => s.console.session("session-s3")],
      ["the touched one stays", (s) => s.console.session("session-s1")],
      ["a password set ends the account's sessions", (s) => s.console.setPassword(1, "argon2-2", T0 + 60)],
      ["so its sessions are gone", (s) => Promise.all([s.console.session("session-s1"), s.console.session("session-s4")])],
      ["and the account has the new password", (s) => s.access.accountById(1)],
      ["a session of the other account", (s) => s.console.startSession(session("s5", 2, T0 + 70), noneExpired)],
      ["disabling the account", (s) => s.access.setDisabled("bo@example.com", true)],
      ["ends its sessions", (s) => s.console.session("session-s5")],
      ["a value stored once", (s) => s.console.valueOnce("console.secret", () => "first")],
      ["and kept", (s) => s.console.valueOnce("console.secret", () => "second")],
    ];
    await expectSameAnswers(steps, sqliteStores(sqlite), postgresStores(postgres));
  });

  test("the embed store: inserts under caps, reads, revocation and a revoked key's embeds, as on SQLite", async () => {
    const { sqlite, postgres } = await freshDatabases();
    const caps = embedCaps({ active: 2, made: 4 });
    const steps: Step<Stores>[] = [
      ["an account", (s) => s.access.insertAccount(newAccount("ana@example.com", { maxKeys: 3 }))],
      ["another", (s) => s.access.insertAccount(newAccount("bo@example.com"))],
      ["keys", (s) => Promise.all([s.access.createKey("ana@example.com", newKey("k1", T0), () => {}), s.access.createKey("ana@example.com", newKey("k2", T0 + 1), () => {}), s.access.createKey("bo@example.com", newKey("b1", T0 + 2), () => {})])],
      ["no embeds", (s) => s.embeds.activeEmbeds()],
      ["an embed", (s) => s.embeds.insertEmbed(embed("e1", "k1", T0 + 10), 1, caps)],
      ["a second, imperial, dark and in Portuguese", (s) => s.embeds.insertEmbed(embed("e2", "k2", T0 + 11, { units: "imperial", theme: "dark", lang: "pt", spots: ["nazaré"] }), 1, caps)],
      ["a third, over the switched-on cap", (s) => s.embeds.insertEmbed(embed("e3", "k1", T0 + 12), 1, caps)],
      ["one of another account", (s) => s.embeds.insertEmbed(embed("b-e1", "b1", T0 + 11), 2, caps)],
      ["by id", (s) => s.embeds.embedById("e2")],
      ["by id, unknown", (s) => s.embeds.embedById("nope")],
      ["switch one off", (s) => s.embeds.markRevoked("e1", T0 + 20)],
      ["switch it off again", (s) => s.embeds.markRevoked("e1", T0 + 21)],
      ["switch off an unknown one", (s) => s.embeds.markRevoked("nope", T0 + 21)],
      ["now a third fits", (s) => s.embeds.insertEmbed(embed("e3", "k1", T0 + 22), 1, caps)],
      ["revoking a key switches its embeds off", (s) => s.access.revokeKey("k2", T0 + 30, () => {})],
      ["a fourth", (s) => s.embeds.insertEmbed(embed("e4", "k1", T0 + 31), 1, caps)],
      ["a fifth, over the made cap", (s) => s.embeds.insertEmbed(embed("e5", "k1", T0 + 32), 1, caps)],
      ["the embeds of keys, oldest first, ties by id", (s) => s.embeds.embedsOfKeys(["k1", "k2", "b1"])],
      ["the embeds of no keys", (s) => s.embeds.embedsOfKeys([])],
      ["the active embeds", (s) => s.embeds.activeEmbeds().then((all) => all.toSorted((a, b) => (a.id < b.id ? -1 : 1)))],
    ];
    await expectSameAnswers(steps, sqliteStores(sqlite), postgresStores(postgres));
  });

  test("two servers redeeming one link at once: one sets the password, the other finds the link used", async () => {
    const { postgres: first, database } = await freshDatabases();
    const second = await anotherPool(database);
    const [one, two] = [postgresConsoleStore(first), postgresConsoleStore(second)];
    await one.issueLink("ana@example.com", inviteTo("ana@example.com", "starter", T0), link("a1", T0));
    const outcomes = await Promise.all([one.redeemLink("link-a1", "from-first", T0 + 1, usable(T0 + 1)), two.redeemLink("link-a1", "from-second", T0 + 1, usable(T0 + 1))]);
    expect(outcomes.toSorted((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toEqual([{ accountId: 1 }, { problem: "used" }]);
    const winner = outcomes[0] !== null && "accountId" in outcomes[0] ? "from-first" : "from-second";
    expect((await postgresAccessStore(second).accountById(1))?.passwordHash).toBe(winner);
  });

  test("two servers inviting one new e-mail at once: one makes the account, the other changes it; both links are stored", async () => {
    const { postgres: first, database } = await freshDatabases();
    const second = await anotherPool(database);
    const results = await Promise.all([postgresConsoleStore(first).issueLink("ana@example.com", inviteTo("ana@example.com", "starter", T0), link("a1", T0)), postgresConsoleStore(second).issueLink("ana@example.com", inviteTo("ana@example.com", "pro", T0), link("a2", T0))]);
    expect(results.map((r) => r.created).toSorted()).toEqual([false, true]);
    expect(new Set(results.map((r) => r.account.id)).size).toBe(1);
    expect((await postgresAccessStore(first).listAccounts()).map((a) => a.email)).toEqual(["ana@example.com"]);
    expect([await postgresConsoleStore(first).link("link-a1"), await postgresConsoleStore(first).link("link-a2")].every((found) => found !== null)).toBe(true);
  });

  test("two servers creating embeds for one account at once: exactly the switched-on cap succeeds", async () => {
    const { postgres: first, database } = await freshDatabases();
    const second = await anotherPool(database);
    const access = postgresAccessStore(first);
    await access.insertAccount(newAccount("ana@example.com"));
    await access.createKey("ana@example.com", newKey("k1", T0), () => {});
    const stores = [drizzleEmbedStore(postgresDialect(first)), drizzleEmbedStore(postgresDialect(second))];
    const caps = embedCaps({ active: 3, made: 100 });
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => stores[i % 2]!.insertEmbed(embed(`e${i}`, "k1", T0 + i), 1, caps)));
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(3);
    expect(await stores[1]!.activeEmbeds()).toHaveLength(3);
  });

  test("embeds made or switched off, invitations and passwords are heard by another server's change feed", async () => {
    const { postgres: first, database } = await freshDatabases();
    const second = await anotherPool(database);
    const feed = await ChangeFeed.start(second, database.url());
    closing.push(() => feed.stop());
    const { access, console, embeds } = postgresStores(first);
    // What the other server reads once it has heard: the change itself.
    const other = postgresStores(second);
    const password = async () => (await other.access.accountByEmail("ana@example.com"))?.passwordHash;
    const activeEmbeds = async () => (await other.embeds.activeEmbeds()).map((e) => e.id);

    let topic = heard(feed, "access");
    await console.issueLink("ana@example.com", inviteTo("ana@example.com", "starter", T0), link("a1", T0));
    await topic;
    expect(await password()).toBeNull(); // the invitation made the account, without a password yet
    topic = heard(feed, "access");
    await console.redeemLink("link-a1", "argon2-1", T0 + 1, usable(T0 + 1));
    await topic;
    expect(await password()).toBe("argon2-1");
    topic = heard(feed, "access");
    await console.setPassword(1, "argon2-2", T0 + 2);
    await topic;
    expect(await password()).toBe("argon2-2");
    await access.createKey("ana@example.com", newKey("k1", T0), () => {});
    topic = heard(feed, "embeds");
    await embeds.insertEmbed(embed("e1", "k1", T0), 1, () => {});
    await topic;
    expect(await activeEmbeds()).toEqual(["e1"]);
    topic = heard(feed, "embeds");
    await embeds.markRevoked("e1", T0 + 3);
    await topic;
    expect(await activeEmbeds()).toEqual([]);
  });
});
