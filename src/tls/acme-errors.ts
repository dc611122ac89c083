/**
 * An ACME failure told as its cause and what the operator should check: pure, over the error's text and code
 * (acme-client gives the server's problem detail as the message; the network gives a code).
 */

export interface AcmeFailure {
  cause: string;
  check: string;
}

interface Context {
  domains: readonly string[];
  directoryUrl: string;
  httpPort: number;
}

const TLS_TRUST = /self[- ]signed|unable to (get|verify)|certificate (verify|has expired|signature)|UNABLE_TO|CERT_|DEPTH_ZERO/i;
const NETWORK = /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)$/;

export function explainAcmeFailure(err: unknown, { domains, directoryUrl, httpPort }: Context): AcmeFailure {
  const message = err instanceof Error ? err.message : String(err);
  const code = String((err as { code?: unknown })?.code ?? "");
  const names = domains.join(", ");
  const challenge = `http://${domains[0]}${httpPort === 80 ? "" : `:${httpPort}`}/.well-known/acme-challenge/`;
  if (TLS_TRUST.test(message) || TLS_TRUST.test(code)) {
    return { cause: `the ACME server ${directoryUrl} has a TLS certificate this machine does not trust`, check: "SURFCAST_ACME_DIRECTORY, and SURFCAST_ACME_CA_FILE for a private or test CA" };
  }
  if (NETWORK.test(code) || /ACME directory/i.test(message)) {
    return { cause: `the ACME server ${directoryUrl} cannot be reached`, check: "SURFCAST_ACME_DIRECTORY and this machine's outgoing connections (firewall, DNS resolver)" };
  }
  if (/rate.?limit|too many/i.test(message)) {
    return { cause: "the ACME server's rate limit is reached", check: "the time in the detail before trying again; do not restart the server in a loop (every start retries)" };
  }
  if (/\bCAA\b/.test(message)) {
    return { cause: `a CAA record of ${names} forbids this certificate authority`, check: "the domain's CAA records" };
  }
  if (/NXDOMAIN|SERVFAIL|no valid (A|AAAA)|DNS problem|no such host|lookup/i.test(message)) {
    return { cause: `DNS for ${names} does not point at this server`, check: `the A/AAAA records of ${names}: they must name this server's public address` };
  }
  if (/connect|refused|timeout|timed out|fetching|unauthorized|incorrect|invalid response|404/i.test(message)) {
    return { cause: `the ACME server could not fetch the challenge at ${challenge}`, check: `that ${names} resolve to this server and that port ${httpPort} (--http-port) is open to the internet` };
  }
  if (/reject|policy|forbidden|not allowed|blacklist|blocked|malformed|invalid identifier/i.test(message)) {
    return { cause: `the ACME server refuses to issue a certificate for ${names}`, check: "the names given to --https (public DNS names, no IP address, no wildcard)" };
  }
  return { cause: "the ACME order failed", check: "the detail, SURFCAST_ACME_DIRECTORY and the names given to --https" };
}
