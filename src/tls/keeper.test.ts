import { describe, expect, spyOn, test } from "bun:test";
import { readFileSync } from "node:fs";
import { tempDir } from "../../test/support/env";
import { makeCertificate } from "../../test/support/pebble";
import { waitFor } from "../../test/support/wait";
import { log } from "../core/log";
import { certificateInfo } from "./acme";
import { explainAcmeFailure } from "./acme-errors";
import { CertificateKeeper } from "./keeper";
import { renewalAt } from "./renewal";
import { CertificateState } from "./state";
import { fileCertificateStore } from "./file-store";
import type { CertificatePair, CertificateStore } from "./store";

const DOMAINS = ["surf.test"];

function pairFor(name: string): CertificatePair {
  const files = makeCertificate(tempDir("keeper"), name, DOMAINS);
  return { cert: readFileSync(files.cert, "utf8"), key: readFileSync(files.key, "utf8") };
}

/** The data directory's store over pairs already kept. */
async function storeWith(kept: Record<string, CertificatePair> = {}): Promise<CertificateStore> {
  const store = fileCertificateStore(tempDir("keeper-store"));
  for (const [name, pair] of Object.entries(kept)) await store.saveCertificate(name, pair);
  return store;
}

type Exclusive = <T>(job: (othersFailedAt: number | null) => Promise<T>) => Promise<T>;

/** The job lease among servers: one job at a time, each told when a job of another server last failed. */
function sharedTurns(): () => Exclusive {
  let last: Promise<unknown> = Promise.resolve();
  let failed: { server: number; at: number } | null = null;
  let servers = 0;
  return () => {
    const server = ++servers;
    return (job) => {
      const turn = () => job(failed && failed.server !== server ? failed.at : null).catch((err: unknown) => {
        failed = { server, at: Date.now() };
        throw err;
      });
      const run = last.then(turn, turn);
      last = run.catch(() => {});
      return run;
    };
  };
}

function keeper(store: CertificateStore, order: () => Promise<CertificatePair>, now: number, exclusive: Exclusive = sharedTurns()()) {
  const served: CertificatePair[] = [];
  const state = new CertificateState();
  const kept = new CertificateKeeper({
    domains: DOMAINS,
    store,
    order,
    exclusive,
    explain: (err) => explainAcmeFailure(err, { domains: DOMAINS, directoryUrl: "https://acme.test/dir", httpPort: 80 }),
    now: () => now,
    state,
    serve: (pair) => served.push(pair),
  });
  return { kept, served, state };
}

describe("the certificate keeper", () => {
  test("without a stored certificate: orders one, keeps it and serves it", async () => {
    const fresh = pairFor("fresh");
    const store = await storeWith();
    const { kept, served, state } = keeper(store, async () => fresh, Date.now());
    await kept.start();
    await waitFor("the order", () => served.length === 1);
    kept.stop();
    expect(served[0]).toEqual(fresh);
    expect(await store.certificate("surf.test")).toEqual(fresh);
    expect(state.notAfter).toBe(certificateInfo(fresh.cert).notAfter);
  });

  test("a failed renewal keeps the stored certificate served and reports its cause", async () => {
    const old = pairFor("old");
    let attempts = 0;
    const due = renewalAt(certificateInfo(old.cert)) + 1;
    const { kept, served, state } = keeper(await storeWith({ "surf.test": old }), async () => {
      attempts += 1;
      throw new Error("Fetching http://surf.test/.well-known/acme-challenge/x: Connection refused");
    }, due);
    await kept.start();
    await waitFor("the attempt", () => attempts === 1 && state.renewalFailure !== null);
    kept.stop();
    expect(served).toEqual([old]);
    expect(state.report(due)).toMatchObject({ expires: new Date(certificateInfo(old.cert).notAfter).toISOString(), renewalFailure: expect.stringContaining("could not fetch the challenge") });
  });

  test("servers sharing a store take turns: one orders, the others serve what it stored", async () => {
    const fresh = pairFor("shared");
    const store = await storeWith();
    const turns = sharedTurns();
    let orders = 0;
    const order = async () => {
      orders += 1;
      return fresh;
    };
    const servers = [keeper(store, order, Date.now(), turns()), keeper(store, order, Date.now(), turns()), keeper(store, order, Date.now(), turns())];
    await Promise.all(servers.map((s) => s.kept.start()));
    await waitFor("every server serving", () => servers.every((s) => s.served.length === 1));
    for (const s of servers) s.kept.stop();
    expect(orders).toBe(1);
    expect(servers.map((s) => s.served[0])).toEqual([fresh, fresh, fresh]);
  });

  test("shortly after another server's attempt failed, the others leave the retry to its backoff", async () => {
    const turns = sharedTurns();
    const store = await storeWith();
    let orders = 0;
    const order = async () => {
      orders += 1;
      throw new Error("DNS problem: NXDOMAIN looking up A for surf.test");
    };
    const servers = [keeper(store, order, Date.now(), turns()), keeper(store, order, Date.now(), turns()), keeper(store, order, Date.now(), turns())];
    const logged = spyOn(log, "error").mockImplementation(() => {});
    let lines: string[];
    try {
      await Promise.all(servers.map((s) => s.kept.start()));
      await waitFor("every server's attempt", () => logged.mock.calls.length === 3);
      lines = logged.mock.calls.map((call) => call[0]);
    } finally {
      for (const s of servers) s.kept.stop();
      logged.mockRestore();
    }
    expect(orders).toBe(1);
    expect(lines.filter((l) => l.includes("DNS for surf.test does not point at this server"))).toHaveLength(1);
    expect(lines.filter((l) => l.includes("another server sharing the database tried just before and failed; check that server's log for the cause; next attempt in 5 min"))).toHaveLength(2);
  });
});
