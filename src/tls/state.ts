/**
 * What the process knows of the certificate it serves: its expiry and whether the last renewal failed. Filled by
 * whoever keeps the certificate (server/), read by /healthz?verbose=1 and /metrics (ops/).
 */
import { daysLeft } from "./renewal";

export interface CertificateReport {
  /** The certificate's expiry (ISO 8601). */
  expires: string;
  daysLeft: number;
  /** The last renewal's failure, cleared by a success: the old certificate is still served meanwhile. */
  renewalFailure?: string;
}

export class CertificateState {
  /** Expiry (ms) of the certificate served, null before the first one or without TLS. */
  notAfter: number | null = null;
  renewalFailure: string | null = null;

  served(notAfter: number): void {
    this.notAfter = notAfter;
    this.renewalFailure = null;
  }

  report(now: number): CertificateReport | null {
    if (this.notAfter === null) return null;
    return { expires: new Date(this.notAfter).toISOString(), daysLeft: daysLeft(this.notAfter, now), renewalFailure: this.renewalFailure ?? undefined };
  }
}
