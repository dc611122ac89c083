/** How the command line words a refusal: a rule's field by the flag that sets it, a refusal's facts for the operator. */
import { Refusal, RuleError, wordRefusal, type RefusalWording, type RuleField } from "../core/errors";
import { escapeControls } from "../core/log";
import { limitReached, whenAllowed } from "../alerts/limits";

const FLAG: Record<RuleField, string> = {
  dailyLimit: "--daily-limit",
  minuteLimit: "--minute-limit",
  maxKeys: "--max-keys",
  plan: "--plan",
  spots: "--spots",
  units: "--units",
  theme: "--theme",
  lang: "--lang",
  minWave: "--min-wave",
  maxWave: "--max-wave",
  minRating: "--min-rating",
  level: "--level",
  wind: "--wind",
  minConfidence: "--min-confidence",
  alertName: "--name",
  keyName: "--name",
};

/** The operator names alerts and accounts by their ids and addresses, and is shown the command that helps. */
const REFUSAL: RefusalWording = {
  no_such_spot: (r) => `no spot with id "${r.spotId}"`,
  one_target: () => "give exactly one of --webhook URL and --email ADDRESS",
  not_an_email: (r) => `"${escapeControls(r.address)}" is not a valid e-mail address`,
  not_a_webhook_url: (r) => `"${escapeControls(r.url.slice(0, 100))}" is not a webhook URL: give an http:// or https:// address of at most ${r.maxLength} characters`,
  webhook_refused: (r) => r.reason,
  alert_limit: (r) => `account ${r.account} already has ${r.max} alerts, the most its plan (${r.plan}) allows; delete one first ("surfcast alerts list ${r.account}")`,
  active_embed_limit: (r) => `account ${r.account} already has ${r.max} active embeds, the most its plan (${r.plan}) allows; revoke one first ("surfcast embeds list ${r.account}")`,
  embeds_made_limit: (r) => `account ${r.account} has made ${r.max} embeds (revoked ones count too), the most one account may make`,
  alert_switched_off: (r) => `alert ${r.alertId} is switched off (${r.reason}): nothing is sent for it`,
  alert_key_revoked: (r) => `alert ${r.alertId}'s key ${r.keyId} is revoked: nothing is sent for it`,
  sending_account_disabled: (r) => `account ${r.account} is disabled: nothing is sent for its alerts`,
  awaiting_confirmation: (r) => `alert ${r.alertId} is waiting for confirmation: ${r.target} receives nothing until the link in its confirmation e-mail is opened`,
  confirmed_already: (r) => `alert ${r.alertId} needs no confirmation (a webhook, or an address confirmed already)`,
  sending_limit: (r) =>
    `${r.scope === "alert" ? `alert ${r.alertId}` : "its account"} ${limitReached(r.sent, r)}; the next is allowed at ${whenAllowed(r.nextAllowedAt, r.refusedAt)}`,
};

export function cliWording(err: Error): string {
  if (err instanceof Refusal) return wordRefusal(REFUSAL, err.facts);
  return err instanceof RuleError && err.field !== undefined ? `${FLAG[err.field]} ${err.rest}` : err.message;
}
