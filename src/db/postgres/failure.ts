/**
 * What an operator reads when the PostgreSQL database cannot be used: one line that says what is wrong with
 * SURFCAST_DATABASE_URL and how to fix it, never the password. Other errors pass through unchanged.
 */
import { UserError } from "../../core/errors";
import { maskPassword } from "../../core/service-url";

const SETTING = "check SURFCAST_DATABASE_URL (or --database-url)";

interface Target {
  host: string;
  port: string;
  user: string;
  database: string;
}

/** Where the URL points, with libpq's defaults for what it leaves out. */
function targetOf(url: string): Target {
  const parsed = new URL(url);
  const user = decodeURIComponent(parsed.username) || "postgres";
  return {
    host: parsed.hostname || "localhost",
    port: parsed.port || "5432",
    user,
    database: decodeURIComponent(parsed.pathname.replace(/^\//, "")) || user,
  };
}

export function postgresFailure(err: unknown, url: string, connectTimeoutS: number): unknown {
  const code = String((err as { code?: unknown }).code ?? "");
  const state = String((err as { errno?: unknown }).errno ?? "");
  const reason = maskPassword(err instanceof Error ? err.message : String(err));
  const t = targetOf(url);
  const where = `PostgreSQL at ${t.host}:${t.port}`;
  // Bun reports a refused connection and an unknown host name alike.
  if (code === "ERR_POSTGRES_CONNECTION_REFUSED") return new UserError(`cannot connect to ${where} (connection refused, or no such host): ${SETTING}, and that PostgreSQL runs and listens there`);
  if (code === "ERR_POSTGRES_CONNECTION_TIMEOUT" || code === "ERR_POSTGRES_CONNECTION_FAILED") {
    return new UserError(`no answer from ${where} within ${connectTimeoutS} s: ${SETTING}, and that no firewall drops the connection`);
  }
  if (state === "3D000") {
    return new UserError(`database "${t.database}" does not exist on ${where}: create it (createdb -h ${t.host} -p ${t.port} -U ${t.user} ${t.database}), or ${SETTING}`);
  }
  // 28P01: wrong password; 28000: unknown role or no pg_hba.conf entry for this client.
  if (state === "28P01" || state === "28000" || /AUTHENTICATION|SASL/.test(code)) {
    return new UserError(`${where} refused user "${t.user}" (${reason}): ${SETTING} — the user and password`);
  }
  if (code.startsWith("ERR_POSTGRES_TLS")) return new UserError(`${where}: ${reason}: ${SETTING} — its sslmode`);
  if (state === "42501") return new UserError(`user "${t.user}" may not create Surfcast's tables in database "${t.database}" on ${where} (${reason}): use the database's owner, or grant this user CREATE on the database and its public schema`);
  // Class 53 (out of connections, memory, disk) and 57P03 (starting up, shutting down): the server's own words.
  if (state.startsWith("53") || state.startsWith("57P0")) return new UserError(`${where} cannot take this connection now (${reason})`);
  return err;
}
