/**
 * The season in a sentence (MCP `spot_now` and `surf_summary`): said only when the spot's current month is among a
 * level's best months (climate.ts), so the texts grow only when the season helps. Pure.
 */
import { LocalClock } from "../core/local-time";
import type { BestMonths } from "../spots/guide";
import { LEVELS } from "../forecast/best";
import type { Level } from "../forecast/types";

const MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const SURFERS: Record<Level, string> = { beginner: "beginners", intermediate: "intermediates", advanced: "advanced surfers" };

const listed = (words: readonly string[]) => (words.length === 1 ? words[0]! : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`);

/**
 * "November is one of this spot's best months for intermediates and advanced surfers", or null when `month` (1..12)
 * is none of the `levels`' best months (or the best months are not known).
 */
export function seasonClause(best: BestMonths | null, month: number, levels: readonly Level[] = LEVELS): string | null {
  if (!best) return null;
  const favoured = levels.filter((level) => best[level].includes(month));
  if (favoured.length === 0) return null;
  const only = favoured.every((level) => best[level].length === 1);
  const whom = favoured.length === LEVELS.length ? "every level" : listed(favoured.map((level) => SURFERS[level]));
  return `${MONTH_NAMES[month - 1]} is ${only ? "this spot's best month" : "one of this spot's best months"} for ${whom}`;
}

/** The month (1..12) at `at` in the spot's time zone. */
export const localMonth = (at: number, zone: string) => Number(new LocalClock(zone).at(at).date.slice(5, 7));
