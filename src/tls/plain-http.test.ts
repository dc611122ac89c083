import { describe, expect, test } from "bun:test";
import { plainHttpHandler } from "./plain-http";

const published: Record<string, string> = { "tok-1": "tok-1.thumbprint" };

function handler(httpsPort: number, ready: boolean, challenge = async (token: string) => published[token] ?? null) {
  return plainHttpHandler({ challenges: { challenge }, domains: ["surf.example.com", "www.surf.example.com"], httpsPort, httpsReady: () => ready });
}

describe("plain HTTP beside HTTPS", () => {
  test("answers a challenge's token, before and after the certificate", async () => {
    for (const ready of [false, true]) {
      const res = await handler(443, ready)(new Request("http://surf.example.com/.well-known/acme-challenge/tok-1"));
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("tok-1.thumbprint");
      expect((await handler(443, ready)(new Request("http://surf.example.com/.well-known/acme-challenge/other"))).status).toBe(404);
    }
  });

  test("a store that cannot answer a challenge asks the ACME server to try again", async () => {
    const res = await handler(443, true, () => Promise.reject(new Error("connection refused")))(new Request("http://surf.example.com/.well-known/acme-challenge/tok-1"));
    expect([res.status, res.headers.get("retry-after")]).toEqual([503, "5"]);
  });

  test("says the certificate is on its way until HTTPS answers", async () => {
    const res = await handler(443, false)(new Request("http://surf.example.com/docs"));
    expect(res.status).toBe(503);
    expect(await res.text()).toContain("certificate");
  });

  test.each([
    ["the same path and query", 443, "http://www.surf.example.com/v1/spots?q=a&limit=2", "https://www.surf.example.com/v1/spots?q=a&limit=2"],
    ["the HTTPS port when it is not 443", 8443, "http://surf.example.com:8080/docs", "https://surf.example.com:8443/docs"],
    ["a host that is not the server's: its first name", 443, "http://evil.example/x", "https://surf.example.com/x"],
  ])("redirects to https: %s", async (_, port, from, to) => {
    const res = await handler(port, true)(new Request(from));
    expect(res.status).toBe(301);
    expect(res.headers.get("location")).toBe(to);
  });
});
