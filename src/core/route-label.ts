/**
 * The route a request path belongs to, as a template for log lines: never the path itself. A path can carry what
 * must not reach a log — a console invitation's token (/console/invite/TOKEN), an embed's id (it stands for a
 * key) — and the query string is never looked at. Unknown paths are "other": their text is the client's.
 */
import { endpointAt } from "./endpoints";

/** The paths outside /v1 that are their own label (/v1 paths are labelled by the endpoint table). */
const FIXED = new Set([
  "/",
  "/healthz",
  "/openapi.json",
  "/docs",
  "/docs/scalar.js",
  "/docs/init.js",
  "/mcp",
  "/console",
]);

export function routeLabel(path: string): string {
  if (FIXED.has(path)) return path;
  if (path.startsWith("/v1/")) return endpointAt(path)?.path ?? "other";
  if (path.startsWith("/embed/")) {
    if (path.startsWith("/embed/assets/")) return "/embed/assets/{file}";
    const [, tail, ...more] = path.slice("/embed/".length).split("/");
    if (more.length > 0) return "other";
    return tail === undefined ? "/embed/{id}" : tail === "stamp" ? "/embed/{id}/stamp" : "other";
  }
  if (path.startsWith("/console/")) return path.startsWith("/console/invite/") ? "/console/invite/{token}" : "/console/{page}";
  return "other";
}
