/** Plans and their default limits, from the spec's Limits table (the stores write them to the plan table). */

export const PLAN_NAMES = ["starter", "growth", "pro", "scale", "early-access"] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface PlanLimits {
  dailyLimit: number;
  minuteLimit: number;
  maxKeys: number;
  attributionRequired: boolean;
  /** Condition alerts (src/alerts/) an account may have, enabled or not. */
  maxAlerts: number;
}

/** Scale is "25,000 or more, custom": these are its defaults until an operator sets custom limits. */
export const PLAN_DEFAULTS: Record<PlanName, PlanLimits> = {
  starter: { dailyLimit: 500, minuteLimit: 60, maxKeys: 2, attributionRequired: true, maxAlerts: 5 },
  growth: { dailyLimit: 2_500, minuteLimit: 120, maxKeys: 5, attributionRequired: true, maxAlerts: 20 },
  pro: { dailyLimit: 10_000, minuteLimit: 300, maxKeys: 10, attributionRequired: false, maxAlerts: 50 },
  scale: { dailyLimit: 25_000, minuteLimit: 600, maxKeys: 25, attributionRequired: false, maxAlerts: 200 },
  "early-access": { dailyLimit: 500, minuteLimit: 60, maxKeys: 2, attributionRequired: true, maxAlerts: 2 },
};

/**
 * Forecast pictures (embeds, docs/embeds.md) per plan, apart from the API's limits: how many an account may have
 * switched on at once, and how many view-minutes a day each may be counted. A view-minute is a UTC minute in which
 * the picture was shown at least once: the first view of a minute is counted, later ones that minute are served
 * from the same page uncounted, so a day holds at most 1,440 and 1,440 means "never runs out". Embed views never
 * use the key's daily quota or burst.
 */
export interface EmbedLimits {
  activeEmbeds: number;
  viewMinutesPerDay: number;
}

export const EMBED_LIMITS: Record<PlanName, EmbedLimits> = {
  starter: { activeEmbeds: 5, viewMinutesPerDay: 720 },
  growth: { activeEmbeds: 10, viewMinutesPerDay: 1_440 },
  pro: { activeEmbeds: 20, viewMinutesPerDay: 1_440 },
  scale: { activeEmbeds: 20, viewMinutesPerDay: 1_440 },
  "early-access": { activeEmbeds: 5, viewMinutesPerDay: 720 },
};

/** Embeds an account may ever make, switched-off ones included: bounds what its lists and pages load. */
export const MAX_EMBEDS_MADE = 100;

export function isPlanName(value: string): value is PlanName {
  return (PLAN_NAMES as readonly string[]).includes(value);
}
