/**
 * The certificate store (store.ts) on the shared PostgreSQL database, for several servers behind one name: the one
 * that orders under the job lease saves the certificate here and every server loads it; the ACME server may fetch a
 * challenge from any of them, so the challenges in flight are rows too.
 */
import { and, eq, gt, lte } from "drizzle-orm";
import { DAY_MS, type Clock } from "../core/clock";
import type { PgDb } from "../db/postgres";
import { acmeAccountKeys, acmeChallenges, tlsCertificates } from "../db/postgres/schema";
import { excludedAll } from "../db/statements";
import type { CertificateStore } from "./store";

/** The one account key's row. */
const ACCOUNT = "account";
/**
 * An order waits minutes for its validation: a challenge older than this was left by a server that stopped in the
 * middle of one (a crash, kill -9), is answered no more, and goes with the next challenge published.
 */
export const CHALLENGE_STALE_MS = DAY_MS;

export function postgresCertificateStore(db: PgDb, clock: Clock): CertificateStore {
  return {
    async accountKey() {
      const [row] = await db.select({ pem: acmeAccountKeys.pem }).from(acmeAccountKeys).where(eq(acmeAccountKeys.id, ACCOUNT));
      return row?.pem ?? null;
    },
    async saveAccountKey(pem) {
      await db
        .insert(acmeAccountKeys)
        .values({ id: ACCOUNT, pem, savedAt: clock.now() })
        .onConflictDoUpdate({ target: acmeAccountKeys.id, set: excludedAll({ pem: acmeAccountKeys.pem, savedAt: acmeAccountKeys.savedAt }) });
    },
    async certificate(name) {
      const [row] = await db.select({ cert: tlsCertificates.cert, key: tlsCertificates.key }).from(tlsCertificates).where(eq(tlsCertificates.name, name));
      return row ?? null;
    },
    async saveCertificate(name, { cert, key }) {
      await db
        .insert(tlsCertificates)
        .values({ name, cert, key, savedAt: clock.now() })
        .onConflictDoUpdate({ target: tlsCertificates.name, set: excludedAll({ cert: tlsCertificates.cert, key: tlsCertificates.key, savedAt: tlsCertificates.savedAt }) });
    },
    async publishChallenge(token, keyAuthorization) {
      await db.delete(acmeChallenges).where(lte(acmeChallenges.createdAt, clock.now() - CHALLENGE_STALE_MS));
      await db
        .insert(acmeChallenges)
        .values({ token, keyAuthorization, createdAt: clock.now() })
        .onConflictDoUpdate({ target: acmeChallenges.token, set: excludedAll({ keyAuthorization: acmeChallenges.keyAuthorization, createdAt: acmeChallenges.createdAt }) });
    },
    async withdrawChallenge(token) {
      await db.delete(acmeChallenges).where(eq(acmeChallenges.token, token));
    },
    async challenge(token) {
      const [row] = await db.select({ keyAuthorization: acmeChallenges.keyAuthorization }).from(acmeChallenges).where(and(eq(acmeChallenges.token, token), gt(acmeChallenges.createdAt, clock.now() - CHALLENGE_STALE_MS)));
      return row?.keyAuthorization ?? null;
    },
  };
}
