/**
 * The plain HTTP listener of `serve --https`: it answers the ACME challenges, a short "certificate on its way" page
 * until the first certificate is in, and then a 301 to the same path and query on https.
 */
import { challengeToken } from "./acme";
import type { CertificateStore } from "./store";

export interface PlainHttpOptions {
  /** Where the challenges in flight are published (on several servers, by whichever one orders). */
  challenges: Pick<CertificateStore, "challenge">;
  domains: readonly string[];
  httpsPort: number;
  /** Whether HTTPS answers yet. */
  httpsReady(): boolean;
}

const ON_ITS_WAY = `<!doctype html><meta charset="utf-8"><title>Surfcast: certificate on its way</title>
<p>This Surfcast server is getting its HTTPS certificate. It answers on https:// in a minute: reload then.</p>\n`;

const answerChallenge = (keyAuthorization: string | null) =>
  keyAuthorization === null ? new Response("unknown challenge\n", { status: 404 }) : new Response(keyAuthorization, { headers: { "content-type": "application/octet-stream" } });

export function plainHttpHandler({ challenges, domains, httpsPort, httpsReady }: PlainHttpOptions): (req: Request) => Response | Promise<Response> {
  const portPart = httpsPort === 443 ? "" : `:${httpsPort}`;
  return (req) => {
    // Bun hands over a bare path when the request has no usable Host.
    const url = URL.parse(req.url) ?? new URL(req.url, `http://${domains[0]}`);
    const token = challengeToken(url.pathname);
    // A store that cannot answer (the shared database away) is a retry for the ACME server, not an error page.
    if (token !== undefined) return challenges.challenge(token).then(answerChallenge, () => new Response("challenges unavailable, try again\n", { status: 503, headers: { "retry-after": "5" } }));
    if (!httpsReady()) return new Response(ON_ITS_WAY, { status: 503, headers: { "content-type": "text/html; charset=utf-8", "retry-after": "30" } });
    // Only to one of the server's own names: a forged Host cannot turn the redirect into a link elsewhere.
    const host = domains.includes(url.hostname) ? url.hostname : domains[0];
    return new Response(null, { status: 301, headers: { location: `https://${host}${portPart}${url.pathname}${url.search}` } });
  };
}

/** HTTPS answers tell browsers to come back on HTTPS only, for a year. */
export const STRICT_TRANSPORT_SECURITY = "max-age=31536000";
