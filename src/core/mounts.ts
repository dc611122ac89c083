/**
 * The mount table: every path the server answers, with who may call it (its guard), the room whose adapter answers
 * it and the handler there (`serve`, a key of that adapter's handler record, so a row without a handler fails the
 * typecheck). The gate, the route labels of logs and metrics, and the OpenAPI document read it; one matcher
 * (core/paths.ts) finds a request's row. Adding an endpoint is a row here plus its handler.
 *
 * A path no row answers is a 404 in the spec's JSON shape. A room that answers everything below its prefix in its
 * own way (the console's page, the embed's page, /v1's 404 with the key's headers) has a `*` row for it.
 */
import { V1_ENDPOINTS, type V1Endpoint } from "./endpoints";
import { compilePaths } from "./paths";
import type { Peer } from "./proxy";

/**
 * Who may call a route, decided on the route that runs:
 *  - key: an API key, authenticated and metered by the gate before the handler runs;
 *  - public: anyone;
 *  - visitor: the console before sign-in (its forms still need the page's CSRF token);
 *  - session, admin: a signed-in console session, an operator's for admin (the console checks: it holds the sessions);
 *  - token: the path holds its own credential (an embed's id, an alert's link token), which the handler looks up;
 *  - local: served on the metrics port only, which listens on 127.0.0.1 alone.
 */
export type Guard = "key" | "public" | "visitor" | "session" | "admin" | "token" | "local";

const READ = ["GET", "HEAD"] as const;
const FORM = ["POST"] as const;
const READ_OR_FORM = ["GET", "HEAD", "POST"] as const;

/** A console page (methods undefined: every one): one trailing `/` is the same page, and its label never shows which page (or an id in its path). */
const consolePage = <S extends string, G extends Guard>(path: string, guard: G, serve: S, methods: readonly string[] | undefined) =>
  ({ room: "console", path, guard, serve, methods, trailingSlash: true, label: "/console/{page}" }) as const;

export const MOUNTS = [
  // /v1 first: the hot path's templates are tried first.
  ...V1_ENDPOINTS.map((endpoint) => ({ room: "v1", path: endpoint.path, guard: "key", serve: endpoint.operationId, endpoint }) as const),
  // Below /v1, a path no operation serves is a 404 all the same, after the key and its limits (its headers on it).
  { room: "v1", path: "/v1", guard: "key", serve: "unknown", label: "other" },
  { room: "v1", path: "/v1/*", guard: "key", serve: "unknown", label: "other" },
  { room: "mcp", path: "/mcp", guard: "key", serve: "mcp" },

  { room: "open", path: "/", guard: "public", serve: "home", methods: READ },
  { room: "open", path: "/healthz", guard: "public", serve: "health", methods: READ },
  { room: "open", path: "/openapi.json", guard: "public", serve: "openapi", methods: READ },
  { room: "open", path: "/docs", guard: "public", serve: "docs", methods: READ },
  { room: "open", path: "/docs/scalar.js", guard: "public", serve: "docsBundle", methods: READ },
  { room: "open", path: "/docs/init.js", guard: "public", serve: "docsInit", methods: READ },

  // Every method: the console answers the ones it does not take with 405.
  { ...consolePage("/console", "visitor", "start", undefined), label: "/console" },
  consolePage("/console/sign-in", "visitor", "signIn", READ_OR_FORM),
  { ...consolePage("/console/invite/{token}", "visitor", "invitation", READ_OR_FORM), label: "/console/invite/{token}" },
  consolePage("/console/sign-out", "visitor", "signOut", FORM),
  // One stylesheet, one script and the icon, embedded in the binary.
  consolePage("/console/assets/console.css", "public", "asset", READ),
  consolePage("/console/assets/console.js", "public", "asset", READ),
  consolePage("/console/assets/favicon.svg", "public", "asset", READ),
  // The signed-in owner's account: keys and forecast pictures.
  consolePage("/console/overview", "session", "overview", READ),
  consolePage("/console/keys", "session", "keys", READ_OR_FORM),
  consolePage("/console/keys/{keyId}/revoke", "session", "revokeKey", READ_OR_FORM),
  consolePage("/console/embeds", "session", "createEmbed", FORM),
  consolePage("/console/embeds/{embedId}/revoke", "session", "revokeEmbed", READ_OR_FORM),
  // The owner's alerts: the list and its form, then one alert's log and actions.
  consolePage("/console/alerts", "session", "alerts", READ_OR_FORM),
  consolePage("/console/alerts/{alertId}", "session", "alertLog", READ),
  consolePage("/console/alerts/{alertId}/delete", "session", "deleteAlert", READ_OR_FORM),
  consolePage("/console/alerts/{alertId}/test", "session", "testAlert", FORM),
  consolePage("/console/alerts/{alertId}/confirm-again", "session", "confirmAgain", FORM),
  consolePage("/console/alerts/{alertId}/deliveries/{deliveryId}/send-again", "session", "sendAgain", FORM),
  // Usage and the password.
  consolePage("/console/usage", "session", "usage", READ),
  consolePage("/console/usage.csv", "session", "usageCsv", READ),
  consolePage("/console/password", "session", "password", READ_OR_FORM),
  // The operator's pages: every account, invitations, then one account's plan and state.
  consolePage("/console/admin", "admin", "accounts", READ),
  consolePage("/console/admin/invite", "admin", "invite", FORM),
  consolePage("/console/admin/keys/{keyId}/revoke", "admin", "revokeAnyKey", READ_OR_FORM),
  consolePage("/console/admin/accounts/{accountId}", "admin", "account", READ),
  consolePage("/console/admin/accounts/{accountId}/plan", "admin", "setPlan", FORM),
  consolePage("/console/admin/accounts/{accountId}/disable", "admin", "disableAccount", FORM),
  consolePage("/console/admin/accounts/{accountId}/enable", "admin", "enableAccount", FORM),
  // Any other console path: the sign-in for a visitor, "no such page" for a signed-in owner.
  consolePage("/console/*", "session", "unknown", undefined),

  { room: "embed", path: "/embed/assets/embed.css", guard: "public", serve: "asset", methods: READ, label: "/embed/assets/{file}" },
  { room: "embed", path: "/embed/assets/screen.js", guard: "public", serve: "asset", methods: READ, label: "/embed/assets/{file}" },
  { room: "embed", path: "/embed/assets/icon.svg", guard: "public", serve: "asset", methods: READ, label: "/embed/assets/{file}" },
  { room: "embed", path: "/embed/{id}", guard: "token", serve: "page", methods: READ },
  { room: "embed", path: "/embed/{id}/stamp", guard: "token", serve: "stamp", methods: READ },
  // Embeds answer other paths with their own "not available" page, and other methods with 405.
  { room: "embed", path: "/embed", guard: "public", serve: "unknown", label: "other" },
  { room: "embed", path: "/embed/*", guard: "public", serve: "unknown", label: "other" },

  { room: "alerts", path: "/alerts/calendar/{token}.ics", guard: "token", serve: "calendar", methods: READ },
  { room: "alerts", path: "/alerts/confirm/{token}", guard: "token", serve: "confirm", methods: READ },
  { room: "alerts", path: "/alerts/unsubscribe/{token}", guard: "token", serve: "unsubscribe", methods: READ_OR_FORM },
  { room: "alerts", path: "/alerts/*", guard: "public", serve: "unknown", label: "other" },

  // The metrics port (ops/metrics.ts), never the API's.
  { room: "metrics", path: "/metrics", guard: "local", serve: "metrics" },
  { room: "metrics", path: "/status", guard: "local", serve: "status" },
] as const;

export type Mount = (typeof MOUNTS)[number];
export type MountRoom = Mount["room"];
/** The rows of one room. */
export type RoomMount<R extends MountRoom> = Extract<Mount, { room: R }>;
/** The rows whose guard is an API key: /v1 and /mcp. */
export type KeyedMount = Extract<Mount, { guard: "key" }>;
/** The rooms of the API port whose rows pass no key. */
export type OpenRoom = Exclude<MountRoom, "v1" | "mcp" | "metrics">;
/** A room's adapter for its rows (all but /v1 and /mcp), given the canonical path the gate decided on. */
export type MountHandler<R extends OpenRoom = OpenRoom> = (req: Request, path: string, mount: RoomMount<R>, peer?: Peer) => Response | Promise<Response>;
/** The handlers a room's adapter must have: one per `serve` of its rows. */
export type ServeOf<R extends MountRoom> = Extract<Mount, { room: R }>["serve"];

const table = compilePaths<Mount>(MOUNTS.filter((mount) => mount.guard !== "local"));
const metricsTable = compilePaths<Mount>(MOUNTS.filter((mount) => mount.guard === "local"));

/** The row of the API port that serves `path` for `method` (for any method when absent: what the path is), or null: no route, a 404. */
export function mountAt(path: string, method?: string): Mount | null {
  return table.match(path, method);
}

/** The row of the metrics port that serves `path`, or null. */
export function metricsMountAt(path: string): RoomMount<"metrics"> | null {
  const mount = metricsTable.match(path);
  return mount?.room === "metrics" ? mount : null;
}

/** The text of a matched row's path parameter as it stands in the path (not decoded); null when the row has none. */
export function mountParam(mount: Mount, path: string, name: string): string | null {
  return table.param(mount, path, name);
}

/** The /v1 operation a request path is served by, or null. */
export function endpointAt(path: string): V1Endpoint | null {
  const mount = table.match(path);
  return mount !== null && "endpoint" in mount ? mount.endpoint : null;
}
