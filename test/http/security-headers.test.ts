/**
 * The security headers of /docs (Scalar's 4 MB bundle, on the console's origin) and /openapi.json, through the
 * compiled binary: a strict Content-Security-Policy, no framing, nosniff. That the reference still renders under
 * the policy with no violation is test/http/docs-page.test.ts (headless Chromium).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startServer, type RunningServer } from "../support/binary";
import { rawRequest } from "../support/raw-http";

let server: RunningServer;

beforeAll(async () => {
  server = await startServer();
}, 30_000);
afterAll(async () => {
  await server?.stop();
});

/** The policy's directives, by name. */
function directives(csp: string | null): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const part of (csp ?? "").split(";")) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) out.set(name, values);
  }
  return out;
}

describe("/docs", () => {
  test("the page, its start-up script and the bundle carry a strict CSP, no framing and nosniff", async () => {
    for (const [path, type] of [
      ["/docs", "text/html"],
      ["/docs/init.js", "text/javascript"],
      ["/docs/scalar.js", "text/javascript"],
    ] as const) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toStartWith(type);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
      const csp = directives(res.headers.get("content-security-policy"));
      expect(Object.fromEntries(csp)).toEqual({
        "default-src": ["'none'"],
        "script-src": ["'self'"],
        "style-src": ["'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "connect-src": ["'self'"],
        "base-uri": ["'none'"],
        "form-action": ["'none'"],
        "frame-ancestors": ["'none'"],
      });
      await res.arrayBuffer();
    }
  });

  test("the page has no inline script: every script is a file of its own origin, and the start-up script runs first", async () => {
    const html = await (await fetch(`${server.url}/docs`)).text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => /src="([^"]+)"/.exec(m[1]!)?.[1])).toEqual(["/docs/init.js", "/docs/scalar.js"]);
    for (const m of scripts) expect(m[2]!.trim()).toBe("");
    expect(html).not.toMatch(/\son[a-z]+\s*=/i); // no inline event handler
    expect(html).not.toContain("javascript:");
  });

  test("HEAD and a request through a raw socket get the same headers", async () => {
    const port = Number(new URL(server.url).port);
    const res = await rawRequest(port, "HEAD /docs HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    expect(res.status).toBe(200);
    expect(res.headers["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
  });
});

describe("/openapi.json", () => {
  test("nosniff and a CSP that runs, loads and frames nothing; still readable cross-origin", async () => {
    const res = await fetch(`${server.url}/openapi.json`, { headers: { Origin: "https://editor.example" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const csp = directives(res.headers.get("content-security-policy"));
    expect(csp.get("default-src")).toEqual(["'none'"]);
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(((await res.json()) as { openapi: string }).openapi).toStartWith("3.1");
  });
});
