/** One refusal of every code, for the tests of the CLI's and the console's wordings (src/cli, src/console). */
import { HOUR_MS } from "../../src/core/clock";
import { Refusal, type RefusalCode, type RefusalFacts } from "../../src/core/errors";

export const REFUSED_AT = Date.parse("2026-11-28T02:00:00Z");
/** A typed address with a control character, longer than the console shows. */
export const LONG_ADDRESS = `surfer\u0007@${"x".repeat(120)}.example`;

export const SAMPLE_REFUSALS: { [C in RefusalCode]: Extract<RefusalFacts, { code: C }> } = {
  no_such_spot: { code: "no_such_spot", spotId: "atlantis-reef" },
  one_target: { code: "one_target" },
  not_an_email: { code: "not_an_email", address: LONG_ADDRESS },
  not_a_webhook_url: { code: "not_a_webhook_url", url: "hooks.example.com/surf", maxLength: 2048 },
  webhook_refused: { code: "webhook_refused", reason: "refused: 10.1.2.3 is a private address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS" },
  alert_limit: { code: "alert_limit", account: "owner@example.com", plan: "early-access", max: 2 },
  active_embed_limit: { code: "active_embed_limit", account: "owner@example.com", plan: "starter", max: 5 },
  embeds_made_limit: { code: "embeds_made_limit", account: "owner@example.com", max: 100 },
  alert_switched_off: { code: "alert_switched_off", alertId: "alert_0123456789abcdef", reason: "the webhook receiver answered 410 Gone" },
  alert_key_revoked: { code: "alert_key_revoked", alertId: "alert_0123456789abcdef", keyId: "key_0123456789abcdef" },
  sending_account_disabled: { code: "sending_account_disabled", account: "owner@example.com" },
  awaiting_confirmation: { code: "awaiting_confirmation", alertId: "alert_0123456789abcdef", target: "rider@example.com" },
  confirmed_already: { code: "confirmed_already", alertId: "alert_0123456789abcdef" },
  sending_limit: { code: "sending_limit", scope: "alert", alertId: "alert_0123456789abcdef", sent: "test", max: 3, perMs: HOUR_MS, nextAllowedAt: REFUSED_AT + 37 * 60_000, refusedAt: REFUSED_AT },
};

/** The account's limit of confirmation e-mails, 10 a day, reached: the other scope and a window of hours. */
export const ACCOUNT_CONFIRMATIONS_REACHED: RefusalFacts = { ...SAMPLE_REFUSALS.sending_limit, scope: "account", sent: "confirmation", max: 10, perMs: 24 * HOUR_MS, nextAllowedAt: REFUSED_AT + 20 * HOUR_MS };

/** Each sample refusal as a wording words it, by code. */
export const wordEach = (wording: (refused: Refusal) => string): Record<RefusalCode, string> =>
  Object.fromEntries(Object.values(SAMPLE_REFUSALS).map((facts) => [facts.code, wording(new Refusal(facts))])) as Record<RefusalCode, string>;
