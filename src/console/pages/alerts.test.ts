import { describe, expect, test } from "bun:test";
import { UserError } from "../../core/errors";
import { alertRequestOf, readAlertForm } from "./alerts";

const sent = (fields: Record<string, string | string[]>) => {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries({ key: "key_1", spot: " supertubos ", delivery: "webhook", target: "https://hooks.example/x", minWave: "1.5", level: "intermediate", ...fields })) {
    for (const v of [value].flat()) form.append(name, v);
  }
  return alertRequestOf(readAlertForm(form));
};

const refusal = (fields: Record<string, string | string[]>) => {
  try {
    sent(fields);
    return null;
  } catch (err) {
    return err instanceof UserError ? err.message : String(err);
  }
};

describe("the alert form as a request", () => {
  test("min wave left empty sets no lower bound (the alert is stored with 0 m)", () => {
    expect(sent({ minWave: "" }).condition.minWave).toBeUndefined();
  });

  test.each([
    [{}, { spotId: "supertubos", webhook: "https://hooks.example/x", condition: { minWave: 1.5, daylight: false } }],
    [{ delivery: "email", target: "me@example.com" }, { email: "me@example.com" }],
    [{ minWave: "1,5", maxWave: "3" }, { condition: { minWave: 1.5, maxWave: 3, daylight: false } }],
    [{ minWave: "4", units: "imperial" }, { condition: { minWave: 4, units: "imperial", daylight: false } }],
    [{ minRating: "4", level: "advanced", daylight: "1" }, { condition: { minWave: 1.5, minRating: 4, level: "advanced", daylight: true } }],
    // A level without a minimum rating is the select's default, not a choice.
    [{ minRating: "", level: "advanced" }, { condition: { minWave: 1.5, daylight: false } }],
    [{ wind: ["offshore", "cross"], minConfidence: "high", name: "Dawn" }, { name: "Dawn", condition: { minWave: 1.5, wind: ["offshore", "cross"], daylight: false, minConfidence: "high" } }],
  ] as const)("%j", (fields, expected) => {
    expect(sent(fields as Record<string, string | string[]>)).toMatchObject(expected);
  });

  test.each([
    [{ minWave: "big" }, "The minimum wave height must be a number, like 1.5 (metres) or 4 (feet)."],
    [{ minWave: "-1" }, "The minimum wave height must be a number, like 1.5 (metres) or 4 (feet)."],
    [{ maxWave: "1.2.3" }, "The maximum wave height must be a number, like 1.5 (metres) or 4 (feet)."],
    [{ spot: " " }, "Choose the spot to watch: find it by name and pick it, or type its id."],
    [{ target: "" }, "Give the webhook URL to send to."],
    [{ delivery: "email", target: "" }, "Give the e-mail address to send to."],
  ] as const)("%j is refused", (fields, sentence) => {
    expect(refusal(fields)).toBe(sentence);
  });
});
