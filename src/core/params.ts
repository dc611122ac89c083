/**
 * Strict parameter parsing shared by /v1 (query strings) and /mcp (JSON arguments), so both reject the same
 * input with the same message. Stricter than a generic coercer: a repeated parameter, hex (`0x1A`), `NaN`,
 * `Infinity`, overflow (`1e309`) and non-integer integers are errors, each naming the parameter. An integer is an
 * integer-valued number as JSON Schema says (`10`, `10.0`, `1e1`): what a validator or generated client may send.
 */
import { BOUNDS } from "./bounds";
import { invalidRequest } from "./errors";
import { UNITS, type Units } from "./units";

type NumberSpec = { kind: "number" | "integer"; minimum: number; maximum: number; default?: number };
type StringSpec = { kind: "string"; minLength: number; maxLength: number };
type EnumSpec = { kind: "enum"; values: readonly string[]; default?: string };
type ParamSpec = (NumberSpec | StringSpec | EnumSpec) & { required?: boolean };

/** A query string's parameters (URLSearchParams, or http/target.ts's), or a tool's JSON arguments. */
export type Raw = { getAll(name: string): string[] } | Record<string, unknown>;

const isQuery = (raw: Raw): raw is { getAll(name: string): string[] } => typeof raw.getAll === "function";

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

function rawValue(raw: Raw, name: string): unknown {
  if (isQuery(raw)) {
    const all = raw.getAll(name);
    if (all.length > 1) throw invalidRequest(`Parameter '${name}' is given more than once.`);
    return all[0];
  }
  return raw[name];
}

function describe(spec: NumberSpec): string {
  return `${spec.kind === "integer" ? "an integer" : "a number"} from ${spec.minimum} to ${spec.maximum}`;
}

function parseNumber(name: string, value: unknown, spec: NumberSpec): number {
  let n: number;
  if (typeof value === "number") n = value;
  else if (typeof value === "string" && DECIMAL.test(value)) n = Number(value);
  else throw invalidRequest(`Parameter '${name}' must be ${describe(spec)}.`);
  if (!Number.isFinite(n) || (spec.kind === "integer" && !Number.isInteger(n)) || n < spec.minimum || n > spec.maximum) {
    throw invalidRequest(`Parameter '${name}' must be ${describe(spec)}.`);
  }
  return n === 0 ? 0 : n; // folds -0
}

function parseString(name: string, value: unknown, spec: StringSpec): string {
  if (typeof value !== "string") throw invalidRequest(`Parameter '${name}' must be a string.`);
  const s = value.trim();
  if (s.length < spec.minLength) throw invalidRequest(`Parameter '${name}' must be at least ${spec.minLength} characters long.`);
  if (s.length > spec.maxLength) throw invalidRequest(`Parameter '${name}' must be at most ${spec.maxLength} characters long.`);
  return s;
}

function parseEnum(name: string, value: unknown, spec: EnumSpec): string {
  if (typeof value !== "string" || !spec.values.includes(value)) throw invalidRequest(`Parameter '${name}' must be one of ${spec.values.join(", ")}.`);
  return value;
}

/** A parser for one set of parameters (its specs listed once, not per request). */
function parser<T>(specs: Record<string, ParamSpec>): (raw: Raw) => T {
  const entries = Object.entries(specs);
  return (raw) => parse<T>(raw, entries);
}

function parse<T>(raw: Raw, specs: readonly [string, ParamSpec][]): T {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of specs) {
    const value = rawValue(raw, name);
    if (value === undefined || value === null) {
      if (spec.required) throw invalidRequest(`Parameter '${name}' is required.`);
      if (spec.kind !== "string" && spec.default !== undefined) out[name] = spec.default;
      continue;
    }
    out[name] = spec.kind === "string" ? parseString(name, value, spec) : spec.kind === "enum" ? parseEnum(name, value, spec) : parseNumber(name, value, spec);
  }
  return out as T;
}

const limit: NumberSpec = { kind: "integer", ...BOUNDS.limit };
const days: NumberSpec = { kind: "integer", ...BOUNDS.days };
/** Metric unless asked: the spec's answers stay metric by default. */
const units: EnumSpec = { kind: "enum", values: UNITS, default: "metric" };

export interface SearchParams {
  q: string;
  limit: number;
}
export interface NearbyParams {
  lat: number;
  lng: number;
  radius: number;
  limit: number;
}
export interface DaysParams {
  days: number;
}
/** The units an answer's measurements are given in. */
export interface UnitsParams {
  units: Units;
}

export const parseSearchParams = parser<SearchParams>({ q: { kind: "string", ...BOUNDS.q, required: true }, limit });

/** A place and a radius around it (nearby and best spots). */
const around: Record<string, ParamSpec> = {
  lat: { kind: "number", ...BOUNDS.lat, required: true },
  lng: { kind: "number", ...BOUNDS.lng, required: true },
  radius: { kind: "number", ...BOUNDS.radius },
};

export const parseNearbyParams = parser<NearbyParams>({ ...around, limit });

export type SurfLevel = (typeof BOUNDS.level.values)[number];

export interface BestSpotsParams extends NearbyParams, UnitsParams {
  level: SurfLevel;
  hours: number;
}

export const parseBestSpotsParams = parser<BestSpotsParams>({
  ...around,
  level: { kind: "enum", ...BOUNDS.level },
  hours: { kind: "integer", ...BOUNDS.hours },
  limit,
  units,
});

export interface SummaryParams extends DaysParams, UnitsParams {
  /** Absent: every level. */
  level?: SurfLevel;
}

export const parseSummaryParams = parser<SummaryParams>({ days, level: { kind: "enum", values: BOUNDS.level.values }, units });

/** `days` of a verification window (`GET /v1/spots/{id}/verification`). */
export const parseVerificationParams = parser<DaysParams>({ days: { kind: "integer", ...BOUNDS.verificationDays } });

/** `days` and `units` of a forecast or tides request. */
export const parseDaysParams = parser<DaysParams & UnitsParams>({ days, units });

/** `units` alone (now, observations, climate): one rule and one message wherever units are asked for. */
export const parseUnitsParams = parser<UnitsParams>({ units });

/** A required comma-separated list of distinct spot ids (`BOUNDS.spots` items). */
export function parseSpotList(raw: Raw, name: string): string[] {
  const value = rawValue(raw, name);
  if (value === undefined || value === null) throw invalidRequest(`Parameter '${name}' is required.`);
  const { minItems, maxItems } = BOUNDS.spots;
  const ids = typeof value === "string" ? value.split(",").map((id) => id.trim()) : [];
  if (ids.length < minItems || ids.length > maxItems || ids.some((id) => id === "")) {
    throw invalidRequest(`Parameter '${name}' must be ${minItems} to ${maxItems} spot ids separated by commas.`);
  }
  const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
  if (repeated !== undefined) throw invalidRequest(`Parameter '${name}' names '${repeated.slice(0, 64)}' more than once.`);
  return ids;
}
