/** Plans and their default limits, from the spec's Limits table. */
import { writeTransaction, type Db } from "../db";
import { plans } from "../db/schema";
import { sql } from "drizzle-orm";

export const PLAN_NAMES = ["starter", "growth", "pro", "scale", "early-access"] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export interface PlanLimits {
  dailyLimit: number;
  minuteLimit: number;
  maxKeys: number;
  attributionRequired: boolean;
}

/** Scale is "25,000 or more, custom": these are its defaults until an operator sets custom limits. */
export const PLAN_DEFAULTS: Record<PlanName, PlanLimits> = {
  starter: { dailyLimit: 500, minuteLimit: 60, maxKeys: 2, attributionRequired: true },
  growth: { dailyLimit: 2_500, minuteLimit: 120, maxKeys: 5, attributionRequired: true },
  pro: { dailyLimit: 10_000, minuteLimit: 300, maxKeys: 10, attributionRequired: false },
  scale: { dailyLimit: 25_000, minuteLimit: 600, maxKeys: 25, attributionRequired: false },
  "early-access": { dailyLimit: 500, minuteLimit: 60, maxKeys: 2, attributionRequired: true },
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

/** Whether the stored plan table already says what PLAN_DEFAULTS says. */
function plansCurrent(db: Db): boolean {
  const stored = new Map(db.select().from(plans).all().map((row) => [row.name, row]));
  return PLAN_NAMES.every((name) => {
    const row = stored.get(name);
    const p = PLAN_DEFAULTS[name];
    return row !== undefined && row.dailyLimit === p.dailyLimit && row.minuteLimit === p.minuteLimit && row.maxKeys === p.maxKeys && row.attributionRequired === p.attributionRequired;
  });
}

/**
 * Writes the plan table from PLAN_DEFAULTS (idempotent; run at every open). Only when it differs: every console
 * command opens the database, and a write here would make each of them queue for the write lock.
 */
export function seedPlans(db: Db): void {
  if (plansCurrent(db)) return;
  writeTransaction(db, () => {
    for (const name of PLAN_NAMES) {
      const p = PLAN_DEFAULTS[name];
      db.insert(plans)
        .values({ name, ...p })
        .onConflictDoUpdate({
          target: plans.name,
          set: {
            dailyLimit: sql`excluded.daily_limit`,
            minuteLimit: sql`excluded.minute_limit`,
            maxKeys: sql`excluded.max_keys`,
            attributionRequired: sql`excluded.attribution_required`,
          },
        })
        .run();
    }
  });
}
