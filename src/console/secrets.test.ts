import { describe, expect, test } from "bun:test";
import { openForSession, sealForSession } from "./secrets";

describe("values sealed for one session", () => {
  const sealed = sealForSession("server secret", "session-a", "whsec_abc", 2_000);

  test("open for the same session before the expiry", () => {
    expect(openForSession("server secret", "session-a", sealed, 1_999)).toBe("whsec_abc");
    expect(sealed).not.toContain("whsec_abc");
  });

  test("another session, another server secret, the expiry, an altered byte or noise open to null", () => {
    expect(openForSession("server secret", "session-b", sealed, 1_000)).toBeNull();
    expect(openForSession("other secret", "session-a", sealed, 1_000)).toBeNull();
    expect(openForSession("server secret", "session-a", sealed, 2_000)).toBeNull();
    const bytes = Buffer.from(sealed, "base64url");
    bytes[bytes.length - 1]! ^= 1;
    expect(openForSession("server secret", "session-a", bytes.toString("base64url"), 1_000)).toBeNull();
    for (const noise of ["", "abc", "x".repeat(80)]) expect(openForSession("server secret", "session-a", noise, 1_000)).toBeNull();
  });
});
