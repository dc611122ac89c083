import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { tempDir } from "../../test/support/env";
import { makeCertificate } from "../../test/support/pebble";
import { waitFor } from "../../test/support/wait";
import { certificateInfo } from "./acme";
import { explainAcmeFailure } from "./acme-errors";
import { CertificateKeeper } from "./keeper";
import { renewalAt } from "./renewal";
import { CertificateState } from "./state";
import type { CertificatePair, CertificateStore } from "./store";

const DOMAINS = ["surf.test"];

function pairFor(name: string): CertificatePair {
  const files = makeCertificate(tempDir("keeper"), name, DOMAINS);
  return { cert: readFileSync(files.cert, "utf8"), key: readFileSync(files.key, "utf8") };
}

function memoryStore(kept: Record<string, CertificatePair> = {}): CertificateStore & { kept: Record<string, CertificatePair> } {
  return {
    kept,
    accountKey: async () => null,
    saveAccountKey: async () => {},
    certificate: async (name) => kept[name] ?? null,
    saveCertificate: async (name, pair) => void (kept[name] = pair),
  };
}

function keeper(store: CertificateStore, order: () => Promise<CertificatePair>, now: number) {
  const served: CertificatePair[] = [];
  const state = new CertificateState();
  const kept = new CertificateKeeper({
    domains: DOMAINS,
    store,
    order,
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
    const store = memoryStore();
    const { kept, served, state } = keeper(store, async () => fresh, Date.now());
    await kept.start();
    await waitFor("the order", () => served.length === 1);
    kept.stop();
    expect(served[0]).toEqual(fresh);
    expect(store.kept["surf.test"]).toEqual(fresh);
    expect(state.notAfter).toBe(certificateInfo(fresh.cert).notAfter);
  });

  test("a failed renewal keeps the stored certificate served and reports its cause", async () => {
    const old = pairFor("old");
    let attempts = 0;
    const due = renewalAt(certificateInfo(old.cert)) + 1;
    const { kept, served, state } = keeper(memoryStore({ "surf.test": old }), async () => {
      attempts += 1;
      throw new Error("Fetching http://surf.test/.well-known/acme-challenge/x: Connection refused");
    }, due);
    await kept.start();
    await waitFor("the attempt", () => attempts === 1 && state.renewalFailure !== null);
    kept.stop();
    expect(served).toEqual([old]);
    expect(state.report(due)).toMatchObject({ expires: new Date(certificateInfo(old.cert).notAfter).toISOString(), renewalFailure: expect.stringContaining("could not fetch the challenge") });
  });
});
