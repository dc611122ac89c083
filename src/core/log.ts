/**
 * Operator logs: one line per event on stderr, `time level message key=value…`.
 * Never pass an API key here — keys are identified by their id only.
 *
 * Lines cannot be forged: text from outside (upstream errors, client input) belongs in fields, and every
 * control character in a message or a field is escaped (a newline cannot start a fake line, ESC cannot drive the
 * terminal), and long texts are cut.
 *
 * Secrets cannot reach a line either, whoever writes it: callers log route templates and ids, never request paths
 * or queries (core/route-label.ts), and as a last line of defence every written line has what looks like a live
 * key, a console invitation's token or a secret-named query parameter replaced (`redactSecrets`).
 */
type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
let threshold: number = ORDER[(process.env.SURFCAST_LOG_LEVEL as Level) ?? "info"] ?? ORDER.info;

export function setLogLevel(level: Level): void {
  threshold = ORDER[level];
}

/** The longest text a message or field keeps. */
const MAX_TEXT = 1000;
/**
 * What a line must never show, wherever it came from (an error text can quote a URL): a live API key, the token
 * of a console invitation link, the value of a query parameter named like a secret. Values already masked
 * (`apikey=[apikey]`) stay as they are.
 */
const SECRETS: readonly [RegExp, string][] = [
  [/sk_live_[A-Za-z0-9_-]+/g, "sk_live_[redacted]"],
  [/\/console\/invite\/[^\s/?#"'\\]+/g, "/console/invite/[token]"],
  [/([?&](?:api[_-]?key|apikey|key|token|access_token|password|secret)=)(?!\[)[^&\s#"'\\]+/gi, "$1[redacted]"],
];

/** `text` with every secret-looking part replaced (see SECRETS); exported for tests. */
export function redactSecrets(text: string): string {
  for (const [pattern, replacement] of SECRETS) text = text.replace(pattern, replacement);
  return text;
}

/** C0 and C1 controls, DEL, and the two Unicode line separators. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const CONTROLS = new RegExp(CONTROL.source, "g");
const ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** Whether text holds a control character (CONTROL): what a name that must stay one line of printable text may not. */
export const hasControls = (text: string): boolean => CONTROL.test(text);

/** Text with every control character written as an escape (a newline as `\n`, ESC as `\u001b`): safe on one line of a terminal. */
export function escapeControls(text: string): string {
  return text.replace(CONTROLS, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

function cut(text: string): string {
  return text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…(${text.length - MAX_TEXT} more)` : text;
}

/** A field value: bare when it is one plain word, else quoted; controls escaped either way. */
function fmt(value: unknown): string {
  const s = cut(typeof value === "string" ? value : String(JSON.stringify(value)));
  const needsQuotes = s === "" || /[\s"=\\]/.test(s) || CONTROL.test(s);
  return escapeControls(needsQuotes ? JSON.stringify(s) : s);
}

/** One log line, as written (exported for tests). */
export function formatLine(time: Date, level: Level, message: string, fields?: Record<string, unknown>): string {
  let line = `${time.toISOString()} ${level.toUpperCase().padEnd(5)} ${escapeControls(cut(message))}`;
  if (fields) for (const [k, v] of Object.entries(fields)) if (v !== undefined) line += ` ${escapeControls(k)}=${fmt(v)}`;
  return line;
}

/** `SURFCAST_LOG_FORMAT=json`: one JSON object per line (time, level, message, then the fields) for journald and shippers. */
const json = process.env.SURFCAST_LOG_FORMAT === "json";

function jsonLine(level: Level, message: string, fields?: Record<string, unknown>): string {
  const entry: Record<string, unknown> = { time: new Date().toISOString(), level, message };
  if (fields) for (const [k, v] of Object.entries(fields)) if (v !== undefined && !(k in entry)) entry[k] = v;
  return JSON.stringify(entry);
}

function write(level: Level, message: string, fields?: Record<string, unknown>): void {
  if (ORDER[level] < threshold) return;
  const line = json ? jsonLine(level, message, fields) : formatLine(new Date(), level, message, fields);
  process.stderr.write(redactSecrets(line) + "\n");
}

export const log = {
  debug: (m: string, f?: Record<string, unknown>) => write("debug", m, f),
  info: (m: string, f?: Record<string, unknown>) => write("info", m, f),
  warn: (m: string, f?: Record<string, unknown>) => write("warn", m, f),
  error: (m: string, f?: Record<string, unknown>) => write("error", m, f),
};

/**
 * A counter for an event that may come in floods (malformed client requests, refused requests): the first
 * occurrence starts a minute, at whose end one INFO line gives the count. A flood costs one line a minute, not
 * one line a request. `example`, when given, is the first occurrence's detail (say, the refused Origin), logged
 * as a field: never a request path or query (a route template at most).
 */
export function tally(message: string, periodMs = 60_000): (example?: string) => void {
  let count = 0;
  let first: string | undefined;
  return (example) => {
    if (count++ > 0) return;
    first = example;
    setTimeout(() => {
      write("info", message, { count, periodSeconds: periodMs / 1000, example: first });
      count = 0;
      first = undefined;
    }, periodMs).unref();
  };
}
