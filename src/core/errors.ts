/**
 * Typed domain errors. Services throw these; each adapter (HTTP, MCP) maps them to the spec's
 * `{error:{code,message}}` in exactly one place.
 */
export type ErrorCode =
  | "invalid_key"
  | "account_disabled"
  | "not_found"
  | "no_forecast"
  | "rate_limited"
  | "invalid_request"
  | "internal"
  | "climate_unavailable";

export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_key: 401,
  account_disabled: 401,
  not_found: 404,
  no_forecast: 404,
  rate_limited: 429,
  invalid_request: 400,
  internal: 500,
  climate_unavailable: 503,
};

export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** A status other than the code's own: 503 for `internal` when a shared part is down (see Outage). */
    private readonly statusOverride?: number,
  ) {
    super(message);
    this.name = "ApiError";
  }
  get status(): number {
    return this.statusOverride ?? ERROR_STATUS[this.code];
  }
  toBody(): { error: { code: ErrorCode; message: string } } {
    return { error: { code: this.code, message: this.message } };
  }
}

export const invalidRequest = (message: string) => new ApiError("invalid_request", message);
export const notFound = (message: string) => new ApiError("not_found", message);

/**
 * A part several servers share (PostgreSQL, Redis) does not answer: the request is refused with 503 rather than
 * answered without its key checked or its use counted, and the server recovers by itself when the part returns.
 */
export class Outage extends Error {
  override readonly name: string = "Outage";
}

/** Bun's client errors that mean "the connection is gone", as opposed to a query PostgreSQL refused. */
const CONNECTION_LOST = /^ERR_(POSTGRES|REDIS)_(CONNECTION|IDLE_TIMEOUT|LIFETIME_TIMEOUT|CONNECTION_CLOSED)/;

/**
 * Whether `err` is a shared part being away (an Outage, or a lost PostgreSQL or Redis connection), also when a
 * library wrapped it (drizzle's query errors keep the driver's as their cause).
 */
export function isOutage(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof Outage) return true;
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && CONNECTION_LOST.test(code)) return true;
  }
  return false;
}

/** Seconds a client is told to wait when a shared part (PostgreSQL, Redis) is away: about how long a restart takes. */
export const OUTAGE_RETRY_AFTER_S = "5";

/** The spec's error body for an outage: code `internal` (the spec leaves its status open) with 503. */
export const unavailable = () =>
  new ApiError("internal", "The service is briefly unavailable (its database or its counters do not answer); please retry in a few seconds.", 503);

/** An operator mistake at the console (unknown plan, unknown account…): printed as a message, never a stack. */
export class UserError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UserError";
  }
}

/**
 * A rule's refusal as a value: a code, the field it concerns (if any) and the rest of a plain sentence about it
 * ("must be an integer from 1 to 100000"). The rule does not know who asked: the CLI names the field by its flag
 * (cli/wording.ts), the console by its form label (console/wording.ts); its message names the field by its key.
 * A refusal whose whole sentence depends on who asked is a `Refusal` instead.
 */
export class RuleError extends UserError {
  constructor(
    readonly code: RuleCode,
    readonly rest: string,
    readonly field?: RuleField,
  ) {
    super(field === undefined ? rest : `${field} ${rest}`);
    this.name = "RuleError";
  }
}

export type RuleCode = "out_of_range" | "required" | "not_one_of" | "control_character";
/** The inputs a rule may concern, by the name the services take them under. */
export type RuleField =
  | "dailyLimit"
  | "minuteLimit"
  | "maxKeys"
  | "plan"
  | "spots"
  | "units"
  | "theme"
  | "lang"
  | "minWave"
  | "maxWave"
  | "minRating"
  | "level"
  | "wind"
  | "minConfidence"
  | "alertName"
  | "keyName";

/**
 * A refusal whose whole sentence depends on who asked, as its facts: the operator at the command line reads the
 * alert's id and the command that helps ("alert alert_… is switched off"), the owner in the console reads "This
 * alert" and "Your plan". The rule does not know who asked: the CLI words it (cli/wording.ts), the console too
 * (console/wording.ts); its message is the code and the facts, for a log.
 */
export class Refusal extends UserError {
  constructor(readonly facts: RefusalFacts) {
    const { code, ...rest } = facts;
    super(`${code} ${JSON.stringify(rest)}`);
    this.name = "Refusal";
  }
}

/** What each refusal carries; `account` is the account's e-mail address, times are milliseconds since the epoch. */
export type RefusalFacts =
  | { code: "no_such_spot"; spotId: string }
  | { code: "one_target" }
  | { code: "not_an_email"; address: string }
  | { code: "not_a_webhook_url"; url: string; maxLength: number }
  /** The webhook's address is not allowed, or does not resolve; `reason` is the address check's own sentence. */
  | { code: "webhook_refused"; reason: string }
  | { code: "alert_limit"; account: string; plan: string; max: number }
  | { code: "active_embed_limit"; account: string; plan: string; max: number }
  | { code: "embeds_made_limit"; account: string; max: number }
  | { code: "alert_switched_off"; alertId: string; reason: string }
  | { code: "alert_key_revoked"; alertId: string; keyId: string }
  | { code: "sending_account_disabled"; account: string }
  | { code: "awaiting_confirmation"; alertId: string; target: string }
  | { code: "confirmed_already"; alertId: string }
  /** Sent by hand (a test event, a confirmation e-mail) `max` times within `perMs`, by the alert or by its account. */
  | { code: "sending_limit"; scope: "alert" | "account"; alertId: string; sent: "test" | "confirmation"; max: number; perMs: number; nextAllowedAt: number; refusedAt: number };

export type RefusalCode = RefusalFacts["code"];

/** An adapter's sentence for every refusal, from its facts. */
export type RefusalWording = { [C in RefusalCode]: (facts: Extract<RefusalFacts, { code: C }>) => string };

export function wordRefusal(wording: RefusalWording, facts: RefusalFacts): string {
  // The mapped type ties each code to its facts; a lookup by a code not known until run time loses that tie.
  return (wording[facts.code] as (facts: RefusalFacts) => string)(facts);
}
