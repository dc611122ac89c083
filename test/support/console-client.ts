/**
 * A cookie-keeping client for the console's HTML pages, without a browser: GET a page, then POST one of its
 * forms with the page's CSRF token and the server's Origin (or, to test refusals, without them).
 */
import { sqliteDb } from "./inprocess";
import type { App } from "../../src/app";
import { issueInvitation } from "../../src/console/invitations";
import { sqliteConsoleStore } from "../../src/console/sqlite-store";

export interface PageResponse {
  status: number;
  location: string | null;
  body: string;
  headers: Headers;
}

export class ConsoleClient {
  private cookies = new Map<string, string>();
  /** The CSRF token of the last page fetched. */
  csrf = "";

  /** `connection`: what every request adds, such as the roots to trust over TLS (`{ tls: { ca } }`). */
  constructor(readonly base: string, private readonly connection: BunFetchRequestInit = {}) {}

  private remember(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === "" || /Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  async request(path: string, init: RequestInit = {}): Promise<PageResponse> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set("Cookie", this.cookieHeader());
    const res = await fetch(path.startsWith("http") ? path : this.base + path, { ...this.connection, ...init, headers, redirect: "manual" });
    this.remember(res);
    const body = await res.text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(body);
    if (csrf) this.csrf = csrf[1]!;
    return { status: res.status, location: res.headers.get("location"), body, headers: res.headers };
  }

  get(path: string, headers: Record<string, string> = {}): Promise<PageResponse> {
    return this.request(path, { headers });
  }

  /** POSTs a form; `csrf` and `origin` default to the page's token and the server's origin. */
  post(path: string, fields: Record<string, string>, opts: { csrf?: string | null; origin?: string | null } = {}): Promise<PageResponse> {
    const body = new URLSearchParams(fields);
    const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (csrf !== null) body.set("csrf", csrf);
    const headers: Record<string, string> = { "Content-Type": "application/x-www-form-urlencoded" };
    const origin = opts.origin === undefined ? new URL(this.base).origin : opts.origin;
    if (origin !== null) headers.Origin = origin;
    return this.request(path, { method: "POST", body, headers });
  }
}

const NAMED: Record<string, string> = { middot: "·", ldquo: "“", rdquo: "”", hellip: "…", larr: "←", mdash: "—", ndash: "–" };

/** Page text: tags dropped, the entities the templates produce decoded, white space collapsed. */
export function text(html: string): string {
  return html
    .replace(/<[^>]+>/g, " ")
    .replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)))
    .replace(/&([a-z]+);/g, (all, name: string) => NAMED[name] ?? all)
    .replace(/\s+/g, " ");
}

/** Invites `email` (as the CLI would), follows the link and sets the password: a signed-in client. */
export async function invitedOwner(app: App, base: string, email: string, password: string, plan = "starter", admin = false): Promise<ConsoleClient> {
  const link = (await issueInvitation(sqliteConsoleStore(sqliteDb(app)), app.clock, base, { email, plan, admin })).url;
  const client = new ConsoleClient(base);
  const opened = await client.get(link);
  const set = await client.post(link, { password, confirm: password });
  if (opened.status !== 200 || set.status !== 303 || set.location !== "/console/overview?notice=welcome") {
    throw new Error(`following the invitation failed: ${opened.status}, then ${set.status} to ${set.location}`);
  }
  return client;
}
