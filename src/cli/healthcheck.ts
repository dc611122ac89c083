/** `surfcast healthcheck` — for container HEALTHCHECKs (no curl in the image): GET /healthz of the local server. */
import { UserError } from "../core/errors";
import { parse } from "./args";

export const HEALTHCHECK_HELP = `Usage: surfcast healthcheck [--url URL]

Exits 0 when the server answers 200 on /healthz within 3 s, 1 otherwise. Opens no database.
  --url URL   the server's address (/healthz is added) or the full URL to check;
              default http://127.0.0.1:$PORT (PORT defaults to 8080)`;

export async function runHealthcheck(argv: string[]): Promise<number> {
  const { values } = parse(argv, { url: { type: "string" } }, HEALTHCHECK_HELP);
  const given = values.url ?? `http://127.0.0.1:${process.env.PORT || "8080"}`;
  if (!URL.canParse(given)) throw new UserError(`--url: "${given}" is not a URL`);
  // The server's base URL (what `serve` prints) means its /healthz.
  const parsed = new URL(given);
  if (parsed.pathname === "/") parsed.pathname = "/healthz";
  const url = parsed.href;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(3000) });
    await response.arrayBuffer();
    if (response.status === 200) return 0;
    console.error(`surfcast: ${url} answered ${response.status}`);
  } catch (err) {
    console.error(`surfcast: ${url}: ${(err as Error).message}`);
  }
  return 1;
}
