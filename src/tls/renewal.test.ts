import { describe, expect, test } from "bun:test";
import { DAY_MS, FIRST_RETRY_MS, daysLeft, nextCheckIn, renewalAt } from "./renewal";

const NOW = Date.UTC(2026, 0, 1);
const letsEncrypt = { notBefore: NOW, notAfter: NOW + 90 * DAY_MS };

describe("renewal time", () => {
  test.each([
    ["90-day certificate: 30 days before expiry", letsEncrypt, NOW + 60 * DAY_MS],
    ["one-year certificate: 30 days before expiry", { notBefore: NOW, notAfter: NOW + 365 * DAY_MS }, NOW + 335 * DAY_MS],
    ["6-day certificate: at two thirds of its life", { notBefore: NOW, notAfter: NOW + 6 * DAY_MS }, NOW + 4 * DAY_MS],
    ["30-second certificate: at 20 seconds", { notBefore: NOW, notAfter: NOW + 30_000 }, NOW + 20_000],
  ])("%s", (_, validity, expected) => expect(renewalAt(validity)).toBe(expected));
});

describe("days left", () => {
  test.each([
    [NOW + 90 * DAY_MS, NOW, 90],
    [NOW + 90 * DAY_MS - 1, NOW, 89],
    [NOW + 1000, NOW, 0],
    [NOW - 1000, NOW, -1],
  ])("expiry %p at %p: %p", (notAfter, now, expected) => expect(daysLeft(notAfter, now)).toBe(expected));
});

describe("next check", () => {
  test.each([
    ["no certificate yet: at once", null, 0, NOW, 0],
    ["fresh 90-day certificate: tomorrow (checked daily)", letsEncrypt, 0, NOW, DAY_MS],
    ["renewal in an hour: in an hour", letsEncrypt, 0, NOW + 60 * DAY_MS - 3_600_000, 3_600_000],
    ["renewal overdue: at once", letsEncrypt, 0, NOW + 70 * DAY_MS, 0],
    ["first failure: 5 minutes", letsEncrypt, 1, NOW, FIRST_RETRY_MS],
    ["third failure: 20 minutes", null, 3, NOW, 4 * FIRST_RETRY_MS],
    ["many failures: at most a day", letsEncrypt, 20, NOW, DAY_MS],
  ])("%s", (_, validity, failures, now, expected) => expect(nextCheckIn(validity, failures, now)).toBe(expected));
});
