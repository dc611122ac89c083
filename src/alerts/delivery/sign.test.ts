import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { newMessageId, newWebhookSecret } from "./ids";
import { signedHeaders } from "./sign";

const BODY = '{"type":"alert.test","spot":{"name":"Pipe"}}';

describe("webhook signatures", () => {
  test("a secret is whsec_ and at least 24 random bytes; two are never the same", () => {
    const a = newWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]+={0,2}$/);
    expect(Buffer.from(a.slice(6), "base64").length).toBeGreaterThanOrEqual(24);
    expect(newWebhookSecret()).not.toBe(a);
  });

  test("a message id is msg_ and 32 hex digits", () => {
    expect(newMessageId()).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(newMessageId()).not.toBe(newMessageId());
  });

  test("our headers verify with the package's Webhook.verify", () => {
    const secret = newWebhookSecret();
    const headers = signedHeaders(secret, "msg_1", BODY, new Date());
    expect(new Webhook(secret).verify(BODY, { ...headers })).toEqual(JSON.parse(BODY));
  });

  test("they do not verify with another secret or another body", () => {
    const secret = newWebhookSecret();
    const headers = { ...signedHeaders(secret, "msg_1", BODY, new Date()) };
    expect(() => new Webhook(newWebhookSecret()).verify(BODY, headers)).toThrow();
    expect(() => new Webhook(secret).verify(BODY.replace("Pipe", "Pipf"), headers)).toThrow();
  });

  test("the signature is v1, base64 HMAC-SHA256 of id.timestamp.body with the decoded secret", () => {
    const key = Buffer.alloc(32, 7);
    const secret = `whsec_${key.toString("base64")}`;
    const at = new Date("2026-11-26T06:00:00.900Z");
    const headers = signedHeaders(secret, "msg_abc", BODY, at);
    const seconds = String(Math.floor(at.getTime() / 1000));
    expect(headers["webhook-timestamp"]).toBe("1795672800");
    expect(headers["webhook-id"]).toBe("msg_abc");
    const expected = createHmac("sha256", key).update(`msg_abc.${seconds}.${BODY}`).digest("base64");
    expect(headers["webhook-signature"]).toBe(`v1,${expected}`);
  });
});
