/** How the command line words a refusal: a rule's field by the flag that sets it. */
import { RuleError, type RuleField } from "../core/errors";

const FLAG: Record<RuleField, string> = {
  dailyLimit: "--daily-limit",
  minuteLimit: "--minute-limit",
  maxKeys: "--max-keys",
  plan: "--plan",
  spots: "--spots",
  units: "--units",
  theme: "--theme",
  minWave: "--min-wave",
  maxWave: "--max-wave",
  minRating: "--min-rating",
  level: "--level",
  wind: "--wind",
  minConfidence: "--min-confidence",
  alertName: "--name",
  keyName: "--name",
};

export function cliWording(err: Error): string {
  return err instanceof RuleError && err.field !== undefined ? `${FLAG[err.field]} ${err.rest}` : err.message;
}
