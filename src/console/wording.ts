/** How the console words a refusal: a rule's field by the label of the form field that sets it, a refusal's facts for the owner. */
import { Refusal, RuleError, wordRefusal, type RefusalWording, type RuleField, type UserError } from "../core/errors";
import { escapeControls } from "../core/log";
import { limitReached, whenAllowed } from "../alerts/limits";

const LABEL: Record<RuleField, string> = {
  dailyLimit: "The daily limit",
  minuteLimit: "The per-minute limit",
  maxKeys: "The key limit",
  plan: "A plan",
  spots: "An embed",
  units: "Units",
  theme: "The theme",
  lang: "The language",
  minWave: "The minimum wave height",
  maxWave: "The maximum wave height",
  minRating: "The minimum rating",
  level: "The level",
  wind: "The wind types",
  minConfidence: "The minimum confidence",
  alertName: "The alert's name",
  keyName: "The key name",
};

/**
 * The owner is spoken to about the alert or the account on the page ("This alert", "Your plan"), and told what to do
 * in the console; a typed value is cut to 100 characters.
 */
const REFUSAL: RefusalWording = {
  no_such_spot: (r) => `There is no spot with the id "${r.spotId.trim()}": find it with GET /v1/spots?q=NAME.`,
  one_target: () => "Give either a webhook URL or an e-mail address.",
  not_an_email: (r) => `"${escapeControls(r.address.slice(0, 100))}" is not a valid e-mail address.`,
  not_a_webhook_url: (r) => `"${escapeControls(r.url.slice(0, 100))}" is not a webhook URL: give an http:// or https:// address of at most ${r.maxLength} characters.`,
  webhook_refused: (r) => `The webhook URL cannot be used: ${r.reason.replace(/^refused: /, "")}.`,
  alert_limit: (r) => `Your plan (${r.plan}) allows ${r.max} alerts and you have ${r.max}. Delete one to create another.`,
  active_embed_limit: (r) => `Your plan (${r.plan}) allows ${r.max} forecast pictures at once and you have ${r.max}. Switch one off to create another.`,
  embeds_made_limit: (r) => `Your account has made ${r.max} forecast pictures (switched-off ones count too), the most one account may make. Reuse one of your pictures.`,
  alert_switched_off: (r) => `This alert is switched off (${r.reason}), so nothing is sent for it; create a new one to receive events again.`,
  alert_key_revoked: () => "This alert's key is revoked, so nothing is sent for it.",
  sending_account_disabled: () => "Your account is disabled, so nothing is sent for its alerts.",
  awaiting_confirmation: (r) => `This alert is waiting for confirmation: ${r.target} receives nothing until the link in its confirmation e-mail is opened.`,
  confirmed_already: () => "This alert needs no confirmation: its address is confirmed.",
  sending_limit: (r) =>
    `${r.scope === "alert" ? "This alert" : "Your account"} ${limitReached(r.sent, r)}: the next can be sent at ${whenAllowed(r.nextAllowedAt, r.refusedAt)}.`,
};

export function consoleWording(err: UserError): string {
  if (err instanceof Refusal) return wordRefusal(REFUSAL, err.facts);
  if (!(err instanceof RuleError) || err.field === undefined) return err.message;
  const sentence = `${LABEL[err.field]} ${err.rest}`;
  return sentence.endsWith(".") ? sentence : `${sentence}.`;
}
