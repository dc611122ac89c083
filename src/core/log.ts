/**
 * Operator logs: one line per event on stderr, `time level message key=value…`.
 * Never pass an API key here — keys are identified by their id only.
 */
type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
let threshold: number = ORDER[(process.env.SURFCAST_LOG_LEVEL as Level) ?? "info"] ?? ORDER.info;

export function setLogLevel(level: Level): void {
  threshold = ORDER[level];
}

function fmt(value: unknown): string {
  const s = typeof value === "string" ? value : JSON.stringify(value);
  return /[\s"=]/.test(s) ? JSON.stringify(s) : s;
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
  if (json) {
    process.stderr.write(jsonLine(level, message, fields) + "\n");
    return;
  }
  let line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${message}`;
  if (fields) for (const [k, v] of Object.entries(fields)) if (v !== undefined) line += ` ${k}=${fmt(v)}`;
  process.stderr.write(line + "\n");
}

export const log = {
  debug: (m: string, f?: Record<string, unknown>) => write("debug", m, f),
  info: (m: string, f?: Record<string, unknown>) => write("info", m, f),
  warn: (m: string, f?: Record<string, unknown>) => write("warn", m, f),
  error: (m: string, f?: Record<string, unknown>) => write("error", m, f),
};
