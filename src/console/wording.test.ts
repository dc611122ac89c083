import { expect, test } from "bun:test";
import { Refusal, RuleError, UserError } from "../core/errors";
import { ACCOUNT_CONFIRMATIONS_REACHED, LONG_ADDRESS, wordEach } from "../../test/support/refusals";
import { consoleWording } from "./wording";

test("a rule's field is named by its form label, as a sentence; any other mistake keeps its message", () => {
  expect(consoleWording(new RuleError("out_of_range", "must be an integer from 1 to 5", "minRating"))).toBe("The minimum rating must be an integer from 1 to 5.");
  expect(consoleWording(new UserError("Choose one of your keys."))).toBe("Choose one of your keys.");
});

test("every refusal in the owner's words: this alert, your plan, what to do in the console", () => {
  expect(wordEach(consoleWording)).toEqual({
    no_such_spot: 'There is no spot with the id "atlantis-reef": find it with GET /v1/spots?q=NAME.',
    one_target: "Give either a webhook URL or an e-mail address.",
    // The typed address is cut to 100 characters before its controls are escaped.
    not_an_email: `"${LONG_ADDRESS.slice(0, 100).replace("\u0007", "\\u0007")}" is not a valid e-mail address.`,
    not_a_webhook_url: '"hooks.example.com/surf" is not a webhook URL: give an http:// or https:// address of at most 2048 characters.',
    webhook_refused: "The webhook URL cannot be used: 10.1.2.3 is a private address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS.",
    alert_limit: "Your plan (early-access) allows 2 alerts and you have 2. Delete one to create another.",
    active_embed_limit: "Your plan (starter) allows 5 forecast pictures at once and you have 5. Switch one off to create another.",
    embeds_made_limit: "Your account has made 100 forecast pictures (switched-off ones count too), the most one account may make. Reuse one of your pictures.",
    alert_switched_off: "This alert is switched off (the webhook receiver answered 410 Gone), so nothing is sent for it; create a new one to receive events again.",
    alert_key_revoked: "This alert's key is revoked, so nothing is sent for it.",
    sending_account_disabled: "Your account is disabled, so nothing is sent for its alerts.",
    awaiting_confirmation: "This alert is waiting for confirmation: rider@example.com receives nothing until the link in its confirmation e-mail is opened.",
    confirmed_already: "This alert needs no confirmation: its address is confirmed.",
    sending_limit: "This alert has had 3 test events in the last hour, the most allowed: the next can be sent at 2026-11-28 02:37 UTC (in 37 min).",
  });
  expect(consoleWording(new Refusal(ACCOUNT_CONFIRMATIONS_REACHED))).toBe("Your account has had 10 confirmation e-mails in the last 24 hours, the most allowed: the next can be sent at 2026-11-28 22:00 UTC (in 20 h).");
});
