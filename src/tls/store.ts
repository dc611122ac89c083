/**
 * Where certificates, the ACME account key and the challenges of an order in flight are kept: the data directory
 * and memory on one server (file-store.ts), PostgreSQL (postgres-store.ts) when several share a database.
 */

/** A certificate chain and its private key, both PEM. */
export interface CertificatePair {
  cert: string;
  key: string;
}

export interface CertificateStore {
  /** The ACME account's private key (PEM), or null before the first order. */
  accountKey(): Promise<string | null>;
  saveAccountKey(pem: string): Promise<void>;
  /** The certificate kept under `name`, or null. */
  certificate(name: string): Promise<CertificatePair | null>;
  saveCertificate(name: string, pair: CertificatePair): Promise<void>;
  /** An HTTP-01 challenge's key authorization, answered on the plain HTTP port while its order waits for validation. */
  publishChallenge(token: string, keyAuthorization: string): Promise<void>;
  withdrawChallenge(token: string): Promise<void>;
  /** The key authorization of a challenge in flight, or null for an unknown token. */
  challenge(token: string): Promise<string | null>;
}
