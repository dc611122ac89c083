/**
 * Certificates ordered by ACME (RFC 8555) with the HTTP-01 challenge, through acme-client; the challenges it
 * publishes in the store, for the plain HTTP listener to answer while the order waits for validation.
 */
import * as acme from "acme-client";
import { Agent } from "node:https";
import type { CertificatePair, CertificateStore } from "./store";
import type { Validity } from "./renewal";

export interface AcmeSettings {
  directoryUrl: string;
  email: string | undefined;
  /** Extra PEM roots to trust the ACME server itself (a private or test CA). */
  caPem: string | undefined;
}

const REQUEST_TIMEOUT_MS = 30_000;
const CHALLENGE_PREFIX = "/.well-known/acme-challenge/";

/** The token a request's path asks a challenge for, or undefined when it is not a challenge's path. */
export function challengeToken(path: string): string | undefined {
  return path.startsWith(CHALLENGE_PREFIX) ? path.slice(CHALLENGE_PREFIX.length) : undefined;
}

/** A certificate's validity and the names it covers, read from its PEM (the first certificate of a chain). */
export function certificateInfo(certPem: string): Validity & { names: string[] } {
  const info = acme.crypto.readCertificateInfo(certPem);
  return { notBefore: info.notBefore.getTime(), notAfter: info.notAfter.getTime(), names: [info.domains.commonName, ...info.domains.altNames].filter((n): n is string => Boolean(n)) };
}

/** Orders certificates for a list of names, with the account key kept in `store` (made on the first order). */
export function acmeOrderer(settings: AcmeSettings, store: CertificateStore): (domains: readonly string[]) => Promise<CertificatePair> {
  // acme-client talks through its one axios instance: the extra roots are trusted for the ACME server only.
  if (settings.caPem !== undefined) acme.axios.defaults.httpsAgent = new Agent({ ca: settings.caPem });
  // A request that hangs would hold the renewal checks with it; acme-client polls an order with requests of its own.
  acme.axios.defaults.timeout = REQUEST_TIMEOUT_MS;
  const accountKey = async () => {
    const kept = await store.accountKey();
    if (kept !== null) return kept;
    const made = (await acme.crypto.createPrivateEcdsaKey()).toString();
    await store.saveAccountKey(made);
    return made;
  };
  return async (domains) => {
    const client = new acme.Client({ directoryUrl: settings.directoryUrl, accountKey: await accountKey() });
    const [key, csr] = await acme.crypto.createCsr({ commonName: domains[0], altNames: [...domains] }, await acme.crypto.createPrivateEcdsaKey());
    const cert = await client.auto({
      csr,
      email: settings.email,
      termsOfServiceAgreed: true,
      challengePriority: ["http-01"],
      // acme-client's own check fetches the challenge through public DNS and port 80 before the ACME server does:
      // behind NAT or on another port it fails where the real validation works. The ACME server's answer is the one that counts.
      skipChallengeVerification: true,
      challengeCreateFn: (_authz, challenge, keyAuthorization) => store.publishChallenge(challenge.token, keyAuthorization),
      challengeRemoveFn: (_authz, challenge) => store.withdrawChallenge(challenge.token),
    });
    return { cert, key: key.toString() };
  };
}
