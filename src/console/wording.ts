/** How the console words a refusal: a rule's field by the label of the form field that sets it. */
import { RuleError, type RuleField, type UserError } from "../core/errors";

const LABEL: Record<RuleField, string> = {
  dailyLimit: "The daily limit",
  minuteLimit: "The per-minute limit",
  maxKeys: "The key limit",
  plan: "A plan",
  spots: "An embed",
  units: "Units",
  theme: "The theme",
  minWave: "The minimum wave height",
  maxWave: "The maximum wave height",
  minRating: "The minimum rating",
  level: "The level",
  wind: "The wind types",
  minConfidence: "The minimum confidence",
  alertName: "The alert's name",
  keyName: "The key name",
};

export function consoleWording(err: UserError): string {
  if (!(err instanceof RuleError) || err.field === undefined) return err.message;
  const sentence = `${LABEL[err.field]} ${err.rest}`;
  return sentence.endsWith(".") ? sentence : `${sentence}.`;
}
