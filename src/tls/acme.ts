/**
 * Certificates ordered by ACME (RFC 8555) with the HTTP-01 challenge, through acme-client; the tokens the plain
 * HTTP listener answers while an order waits for validation.
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

/** The key authorizations of the challenges in flight, by token. */
export class ChallengeResponses {
  private readonly byToken = new Map<string, string>();

  set(token: string, keyAuthorization: string): void {
    this.byToken.set(token, keyAuthorization);
  }

  delete(token: string): void {
    this.byToken.delete(token);
  }

  isChallengePath(path: string): boolean {
    return path.startsWith(CHALLENGE_PREFIX);
  }

  /** The key authorization a challenge's path asks for, or undefined for an unknown token. */
  answer(path: string): string | undefined {
    return this.byToken.get(path.slice(CHALLENGE_PREFIX.length));
  }
}

/** A certificate's validity and the names it covers, read from its PEM (the first certificate of a chain). */
export function certificateInfo(certPem: string): Validity & { names: string[] } {
  const info = acme.crypto.readCertificateInfo(certPem);
  return { notBefore: info.notBefore.getTime(), notAfter: info.notAfter.getTime(), names: [info.domains.commonName, ...info.domains.altNames].filter((n): n is string => Boolean(n)) };
}

/** Orders certificates for a list of names, with the account key kept in `store` (made on the first order). */
export function acmeOrderer(settings: AcmeSettings, store: CertificateStore, challenges: ChallengeResponses): (domains: readonly string[]) => Promise<CertificatePair> {
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
      challengeCreateFn: async (_authz, challenge, keyAuthorization) => challenges.set(challenge.token, keyAuthorization),
      challengeRemoveFn: async (_authz, challenge) => challenges.delete(challenge.token),
    });
    return { cert, key: key.toString() };
  };
}
