/**
 * The certificate store on PostgreSQL (src/tls/postgres-store.ts) between two "servers" (separate pools on one
 * database): what one saves — the account key, a certificate and its renewal, a challenge in flight — the other reads;
 * a challenge left by a server that stopped mid-order is swept.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ManualClock } from "../../src/core/clock";
import { closePostgres, openPostgres, type PgDb } from "../../src/db/postgres";
import { CHALLENGE_STALE_MS, postgresCertificateStore } from "../../src/tls/postgres-store";
import { createTestDatabase, describeWithPostgres, type TestDatabase } from "../support/postgres";

describeWithPostgres("the certificate store on a shared database", () => {
  let database: TestDatabase;
  let pools: PgDb[];
  beforeAll(async () => {
    database = await createTestDatabase("surfcast_tls_store");
    pools = await Promise.all([1, 2].map(() => openPostgres(database.url(), { max: 2 })));
  });
  afterAll(async () => {
    await Promise.all((pools ?? []).map(closePostgres));
    await database?.drop();
  });

  test("one server saves, another reads: the account key, a certificate and its renewal, a challenge until withdrawn", async () => {
    const clock = new ManualClock(Date.parse("2026-03-01T06:00:00Z"));
    const orderer = postgresCertificateStore(pools[0]!, clock);
    const other = postgresCertificateStore(pools[1]!, clock);
    expect(await other.accountKey()).toBeNull();
    expect(await other.certificate("surf.test")).toBeNull();
    expect(await other.challenge("tok-1")).toBeNull();

    await orderer.saveAccountKey("ACCOUNT");
    await orderer.publishChallenge("tok-1", "tok-1.thumbprint");
    expect(await other.accountKey()).toBe("ACCOUNT");
    expect(await other.challenge("tok-1")).toBe("tok-1.thumbprint");
    await orderer.withdrawChallenge("tok-1");
    expect(await other.challenge("tok-1")).toBeNull();

    await orderer.saveCertificate("surf.test", { cert: "CERT-1", key: "KEY-1" });
    expect(await other.certificate("surf.test")).toEqual({ cert: "CERT-1", key: "KEY-1" });
    await other.saveCertificate("surf.test", { cert: "CERT-2", key: "KEY-2" });
    expect(await orderer.certificate("surf.test")).toEqual({ cert: "CERT-2", key: "KEY-2" });
    expect(await orderer.certificate("other.test")).toBeNull();
    const [row] = (await database.sql`SELECT saved_at::float8 AS "savedAt" FROM cluster.tls_certificates WHERE name = 'surf.test'`) as { savedAt: number }[];
    expect(row?.savedAt).toBe(clock.now());
  });

  test("a challenge a crashed server left behind is answered no more after a day, and goes with the next one published", async () => {
    const clock = new ManualClock(Date.parse("2026-03-02T06:00:00Z"));
    const crashed = postgresCertificateStore(pools[0]!, clock);
    const next = postgresCertificateStore(pools[1]!, clock);
    await crashed.publishChallenge("left-behind", "left-behind.thumbprint");
    clock.advance(CHALLENGE_STALE_MS - 1);
    expect(await next.challenge("left-behind")).toBe("left-behind.thumbprint");
    clock.advance(1);
    expect(await next.challenge("left-behind")).toBeNull();
    const tokens = async () => ((await database.sql`SELECT token FROM cluster.acme_challenges ORDER BY token`) as { token: string }[]).map((r) => r.token);
    expect(await tokens()).toEqual(["left-behind"]);
    await next.publishChallenge("fresh", "fresh.thumbprint");
    expect(await tokens()).toEqual(["fresh"]);
    expect(await crashed.challenge("fresh")).toBe("fresh.thumbprint");
  });
});
