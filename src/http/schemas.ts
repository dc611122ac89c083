/**
 * The response and parameter schemas of /v1: the source of the OpenAPI document. Bounds come from
 * core/bounds.ts, the same table the strict parser and the MCP tools use.
 */
import { t } from "elysia";
import { BOUNDS } from "../core/bounds";

export const ErrorSchema = t.Object(
  {
    error: t.Object({
      code: t.Union(
        ["invalid_key", "account_disabled", "not_found", "no_forecast", "rate_limited", "invalid_request", "internal"].map((c) => t.Literal(c)),
      ),
      message: t.String(),
    }),
  },
  { $id: "#/components/schemas/Error", title: "Error" },
);

export const SpotSchema = t.Object(
  {
    id: t.String({ description: "Stable slug: lower-case ASCII words joined by hyphens." }),
    name: t.String(),
    country: t.String({ description: "First segment of the source's country string." }),
    region: t.Union([t.String(), t.Null()], { description: "Remaining segments of the country string, or null." }),
    lat: t.Number({ minimum: -90, maximum: 90 }),
    lng: t.Number({ minimum: -180, maximum: 180 }),
    hexId: t.String({ pattern: "^[0-9a-f]{16}$", description: "Raw 16-hex id; accepted wherever a spot id is a parameter." }),
  },
  { title: "Spot" },
);

export const SpotWithDistanceSchema = t.Composite([SpotSchema, t.Object({ distanceKm: t.Number({ minimum: 0 }) })], { title: "SpotWithDistance" });

export const searchQuery = t.Object({
  q: t.String({ minLength: BOUNDS.q.minLength, maxLength: BOUNDS.q.maxLength, description: "Search text (name, alias, country or region); at least 2 characters after trimming." }),
  limit: t.Optional(t.Integer({ minimum: BOUNDS.limit.minimum, maximum: BOUNDS.limit.maximum, default: BOUNDS.limit.default })),
});

export const nearbyQuery = t.Object({
  lat: t.Number({ minimum: BOUNDS.lat.minimum, maximum: BOUNDS.lat.maximum }),
  lng: t.Number({ minimum: BOUNDS.lng.minimum, maximum: BOUNDS.lng.maximum }),
  radius: t.Optional(t.Number({ minimum: BOUNDS.radius.minimum, maximum: BOUNDS.radius.maximum, default: BOUNDS.radius.default, description: "Kilometers." })),
  limit: t.Optional(t.Integer({ minimum: BOUNDS.limit.minimum, maximum: BOUNDS.limit.maximum, default: BOUNDS.limit.default })),
});

export const daysQuery = t.Object({
  days: t.Optional(t.Integer({ minimum: BOUNDS.days.minimum, maximum: BOUNDS.days.maximum, default: BOUNDS.days.default })),
});

export const idParams = t.Object({
  id: t.String({ description: "Spot slug or raw 16-hex id." }),
});
