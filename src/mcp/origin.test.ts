/** The /mcp Origin policy as a pure function: same host when it is one of the server's names, listed origins, "*". */
import { describe, expect, test } from "bun:test";
import { createOriginPolicy } from "./origin";

describe("MCP Origin policy", () => {
  test("without a list only the request's own host passes, when it is one of the server's names; default ports included", () => {
    const allowed = createOriginPolicy([], ["surf.example"]);
    const cases: [string, string, boolean][] = [
      ["http://127.0.0.1:8080", "127.0.0.1:8080", true],
      ["http://LOCALHOST:8080", "localhost:8080", true],
      ["https://surf.example", "surf.example", true],
      ["https://surf.example:443", "surf.example", true],
      ["http://surf.example", "surf.example:80", true],
      ["https://surf.example", "surf.example:8443", false],
      ["http://127.0.0.1:8081", "127.0.0.1:8080", false],
      ["http://127.0.0.1.evil.example:8080", "127.0.0.1:8080", false],
      ["https://evil.example", "surf.example", false],
      ["null", "surf.example", false],
      ["not a url", "surf.example", false],
      ["http://[::1]:8080", "[::1]:8080", true],
      // DNS rebinding: the attacker's name resolves to this server, and the page's Origin equals its Host.
      ["http://attacker.example:8080", "attacker.example:8080", false],
      ["http://surf.example.attacker.example", "surf.example.attacker.example", false],
    ];
    for (const [origin, host, expected] of cases) expect([origin, host, allowed(origin, host)]).toEqual([origin, host, expected]);
  });

  test("listed origins pass whatever the host; entries are normalized like browser origins", () => {
    const allowed = createOriginPolicy(["https://App.example/", "http://localhost:6274", "null"], []);
    expect(allowed("https://app.example", "api.example")).toBe(true);
    expect(allowed("http://localhost:6274", "api.example")).toBe(true);
    expect(allowed("null", "api.example")).toBe(true);
    expect(allowed("http://app.example", "api.example")).toBe(false);
    expect(allowed("http://localhost:6275", "api.example")).toBe(false);
  });

  test('"*" allows every origin', () => {
    const allowed = createOriginPolicy(["https://app.example", "*"], []);
    expect(allowed("https://evil.example", "api.example")).toBe(true);
    expect(allowed("null", "api.example")).toBe(true);
  });
});
