import { expect, test } from "bun:test";
import { Refusal, RuleError, UserError } from "../core/errors";
import { ACCOUNT_CONFIRMATIONS_REACHED, LONG_ADDRESS, wordEach } from "../../test/support/refusals";
import { cliWording } from "./wording";

test("every refusal in the operator's words: ids, addresses and the command that helps", () => {
  expect(wordEach(cliWording)).toEqual({
    no_such_spot: 'no spot with id "atlantis-reef"',
    one_target: "give exactly one of --webhook URL and --email ADDRESS",
    not_an_email: `"${LONG_ADDRESS.replace("\u0007", "\\u0007")}" is not a valid e-mail address`,
    not_a_webhook_url: '"hooks.example.com/surf" is not a webhook URL: give an http:// or https:// address of at most 2048 characters',
    webhook_refused: "refused: 10.1.2.3 is a private address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS",
    alert_limit: 'account owner@example.com already has 2 alerts, the most its plan (early-access) allows; delete one first ("surfcast alerts list owner@example.com")',
    active_embed_limit: 'account owner@example.com already has 5 active embeds, the most its plan (starter) allows; revoke one first ("surfcast embeds list owner@example.com")',
    embeds_made_limit: "account owner@example.com has made 100 embeds (revoked ones count too), the most one account may make",
    alert_switched_off: "alert alert_0123456789abcdef is switched off (the webhook receiver answered 410 Gone): nothing is sent for it",
    alert_key_revoked: "alert alert_0123456789abcdef's key key_0123456789abcdef is revoked: nothing is sent for it",
    sending_account_disabled: "account owner@example.com is disabled: nothing is sent for its alerts",
    awaiting_confirmation: "alert alert_0123456789abcdef is waiting for confirmation: rider@example.com receives nothing until the link in its confirmation e-mail is opened",
    confirmed_already: "alert alert_0123456789abcdef needs no confirmation (a webhook, or an address confirmed already)",
    sending_limit: "alert alert_0123456789abcdef has had 3 test events in the last hour, the most allowed; the next is allowed at 2026-11-28 02:37 UTC (in 37 min)",
  });
  expect(cliWording(new Refusal(ACCOUNT_CONFIRMATIONS_REACHED))).toBe("its account has had 10 confirmation e-mails in the last 24 hours, the most allowed; the next is allowed at 2026-11-28 22:00 UTC (in 20 h)");
});

test("a rule's field is named by its flag; any other mistake keeps its message", () => {
  expect(cliWording(new RuleError("out_of_range", "must be an integer from 1 to 5", "minRating"))).toBe("--min-rating must be an integer from 1 to 5");
  expect(cliWording(new RuleError("out_of_range", "must have 1 to 64 characters", "alertName"))).toBe("--name must have 1 to 64 characters");
  expect(cliWording(new UserError("no key with id key_0"))).toBe("no key with id key_0");
});
