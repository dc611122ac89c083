/**
 * The route a request path belongs to, as a template for log lines: never the path itself. A path can carry what
 * must not reach a log — a console invitation's token (/console/invite/TOKEN), an embed's id (it stands for a
 * key) — and the query string is never looked at. The label is the mount table's (core/mounts.ts): its row's
 * template, or what the row names instead; a path no row serves is "other": its text is the client's.
 */
import { mountAt } from "./mounts";

export function routeLabel(path: string): string {
  const mount = mountAt(path);
  if (mount === null) return "other";
  return "label" in mount ? mount.label : mount.path;
}
