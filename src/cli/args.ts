/** Small wrapper over node:util parseArgs that turns its errors into operator-facing messages. */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UserError } from "../core/errors";

export type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * Parses a command's flags. A mistake is one line that names the flag (and the one meant, for a typo) and where the
 * options are listed, never the whole usage.
 */
export function parse<O extends Options>(argv: string[], options: O, help: string) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
  } catch (err) {
    const usage = /^Usage:\s+(surfcast [a-z-]+)/.exec(help)?.[1] ?? "surfcast";
    throw new UserError(`${flagProblem(err as Error & { code?: string }, Object.keys(options))} (see ${usage} --help)`);
  }
}

function flagProblem(err: Error & { code?: string }, known: string[]): string {
  const unknown = /^Unknown option '([^']+)'/.exec(err.message)?.[1];
  if (unknown !== undefined) {
    const name = unknown.replace(/^-+/, "").split("=")[0]!;
    const near = known.filter((k) => k.length > 1).sort((a, b) => editDistance(name, a) - editDistance(name, b))[0];
    const meant = near !== undefined && editDistance(name, near) <= (near.length >= 4 ? 2 : 1) ? ` (did you mean --${near}?)` : "";
    return `unknown option ${unknown}${meant}`;
  }
  const missing = /^Option '(-[^ ']+)(?:, )?(--[^ ']+)? <value>' argument missing/.exec(err.message);
  if (missing) return `${missing[2] ?? missing[1]} needs a value`;
  const noValue = /^Option '([^']+)' does not take an argument/.exec(err.message);
  if (noValue) return `${noValue[1]} takes no value`;
  return err.message.split("\n")[0]!.replace(/\.$/, "");
}

/** Levenshtein distance, for suggesting the flag a typo meant. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    previous = row;
  }
  return previous[b.length]!;
}

/** An optional integer flag; `undefined` when absent. */
export function intFlag(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const s = String(value);
  if (!/^\d+$/.test(s)) throw new UserError(`${name} must be a positive integer, got "${s}"`);
  return Number(s);
}

export function requirePositional(positionals: string[], index: number, what: string, help: string): string {
  const value = positionals[index];
  if (value === undefined) throw new UserError(`missing ${what}\n\n${help}`);
  return value;
}

/** The options every command takes, by flag. */
const GLOBAL_OPTIONS = { "--data-dir": "dataDir", "--database-url": "databaseUrl", "--redis-url": "redisUrl" } as const;
export type GlobalOptions = Partial<Record<(typeof GLOBAL_OPTIONS)[keyof typeof GLOBAL_OPTIONS], string>>;

/** Takes the global options out of argv wherever they stand (`--flag VALUE` or `--flag=VALUE`). */
export function extractGlobalOptions(argv: string[]): { global: GlobalOptions; rest: string[] } {
  const global: GlobalOptions = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const flag = Object.keys(GLOBAL_OPTIONS).find((f) => arg === f || arg.startsWith(`${f}=`)) as keyof typeof GLOBAL_OPTIONS | undefined;
    if (flag === undefined) {
      rest.push(arg);
      continue;
    }
    const value = arg === flag ? argv[++i] : arg.slice(flag.length + 1);
    if (value === undefined || value === "") throw new UserError(`${flag} needs ${flag === "--data-dir" ? "a directory" : "a URL"}`);
    global[GLOBAL_OPTIONS[flag]] = value;
  }
  return { global, rest };
}

export function noExtraPositionals(positionals: string[], max: number, help: string): void {
  if (positionals.length > max) throw new UserError(`unexpected argument "${positionals[max]}"\n\n${help}`);
}
