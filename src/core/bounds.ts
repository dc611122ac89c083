/**
 * Parameter bounds from the spec (Limits §7). HTTP schemas, MCP tool schemas and the service-level checks
 * are all built from this one table so /v1 and /mcp cannot drift apart.
 */
export const BOUNDS = {
  q: { minLength: 2, maxLength: 200 },
  limit: { minimum: 1, maximum: 50, default: 10 },
  radius: { minimum: 0, maximum: 100, default: 50 },
  days: { minimum: 1, maximum: 7, default: 7 },
  lat: { minimum: -90, maximum: 90 },
  lng: { minimum: -180, maximum: 180 },
  /** Spot ids in one GET /v1/now. */
  spots: { minItems: 1, maxItems: 20 },
  /** Hours ahead `GET /v1/spots/best` looks (beyond the spec). */
  hours: { minimum: 1, maximum: 72, default: 24 },
  /** Surfer levels of the ratings; `GET /v1/spots/best` ranks for one (beyond the spec). */
  level: { values: ["beginner", "intermediate", "advanced"], default: "intermediate" },
  /** Days of buoy readings a verification scores (beyond the spec): a week at least, at most the 45 days NDBC's realtime files hold. */
  verificationDays: { minimum: 7, maximum: 45, default: 30 },
  /** Longest spot id accepted before it is rejected as not found without a lookup. */
  idMaxLength: 200,
} as const;
