/** Small wrapper over node:util parseArgs that turns its errors into operator-facing messages. */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UserError } from "../core/errors";

export type Options = NonNullable<ParseArgsConfig["options"]>;

export function parse<O extends Options>(argv: string[], options: O, help: string) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UserError(`${(err as Error).message.split("\n")[0]}\n\n${help}`);
  }
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

export function noExtraPositionals(positionals: string[], max: number, help: string): void {
  if (positionals.length > max) throw new UserError(`unexpected argument "${positionals[max]}"\n\n${help}`);
}
