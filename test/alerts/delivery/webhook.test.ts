import { afterEach, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { parseAllowedNetworks, type Resolver } from "../../../src/alerts/delivery/address";
import { newWebhookSecret } from "../../../src/alerts/delivery/ids";
import { sendWebhook, type WebhookRequest } from "../../../src/alerts/delivery/webhook";
import { startReceiver, type Receiver } from "./receiver";

const LOCAL = parseAllowedNetworks("127.0.0.1/32");
const NONE = parseAllowedNetworks("");
const BODY = '{"type":"alert.test","spot":{"id":"pipe","name":"Pipeline"}}';
const secret = newWebhookSecret();

let receiver: Receiver | undefined;
afterEach(() => receiver?.stop());

function attempt(url: string, extra: Partial<WebhookRequest> = {}) {
  return sendWebhook({ url, secret, eventId: "msg_0123", body: BODY, allowed: LOCAL, ...extra });
}

describe("sendWebhook", () => {
  test("2xx: delivered, a signed JSON POST of the body as given", async () => {
    receiver = startReceiver([202]);
    const result = await attempt(`${receiver.url}/hook`);
    expect(result).toMatchObject({ outcome: "delivered", status: 202 });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    const [got] = receiver.received;
    expect(got!.path).toBe("/hook");
    expect(got!.body).toBe(BODY);
    expect(got!.headers["content-type"]).toBe("application/json");
    expect(got!.headers["webhook-id"]).toBe("msg_0123");
    expect(new Webhook(secret).verify(got!.body, got!.headers)).toEqual(JSON.parse(BODY));
  });

  test.each([
    [500, "failed", "HTTP 500"],
    [404, "failed", "HTTP 404"],
    [429, "failed", "HTTP 429"],
    [410, "gone", "HTTP 410 Gone"],
  ] as const)("%i → %s", async (status, outcome, error) => {
    receiver = startReceiver([status]);
    expect(await attempt(`${receiver.url}/hook`)).toMatchObject({ outcome, status, error });
  });

  test("a loopback target without the operator's allowance is refused before anything is sent", async () => {
    receiver = startReceiver([204]);
    const result = await attempt(`${receiver.url}/hook`, { allowed: NONE });
    expect(result).toMatchObject({ outcome: "refused", error: "refused: 127.0.0.1 is a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS" });
    expect(receiver.received).toHaveLength(0);
  });

  test("a name is checked as it resolves now, and plain http goes to the checked address with the name as Host", async () => {
    receiver = startReceiver([204]);
    let answer = ["127.0.0.1"];
    const resolve: Resolver = async () => answer;
    const url = `http://hooks.shop.test:${receiver.port}/hook`;
    expect(await attempt(url, { resolve })).toMatchObject({ outcome: "delivered" });
    expect(receiver.received[0]!.host).toBe(`hooks.shop.test:${receiver.port}`);
    answer = ["127.0.0.1", "10.0.0.1"]; // DNS changed since the alert was made
    expect(await attempt(url, { resolve })).toMatchObject({
      outcome: "refused",
      error: "refused: hooks.shop.test resolves to a private address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS",
    });
    expect(receiver.received).toHaveLength(1);
  });

  test("a name that does not resolve now fails (tried again later) rather than being refused", async () => {
    const resolve: Resolver = async () => {
      throw Object.assign(new Error("no"), { code: "ENOTFOUND" });
    };
    expect(await attempt("https://gone.example/hook", { resolve })).toMatchObject({ outcome: "failed", error: "gone.example does not resolve (ENOTFOUND)" });
  });

  test("a redirect to an allowed target is followed as the same signed POST", async () => {
    receiver = startReceiver([() => new Response(null, { status: 308, headers: { location: "/moved" } }), 200]);
    expect(await attempt(`${receiver.url}/hook`)).toMatchObject({ outcome: "delivered", status: 200 });
    expect(receiver.received.map((r) => r.path)).toEqual(["/hook", "/moved"]);
    const moved = receiver.received[1]!;
    expect(moved.body).toBe(BODY);
    expect(new Webhook(secret).verify(moved.body, moved.headers)).toEqual(JSON.parse(BODY));
  });

  test("a redirect to a refused address is not followed", async () => {
    receiver = startReceiver([() => new Response(null, { status: 302, headers: { location: "http://169.254.169.254/latest/meta-data/" } })]);
    const result = await attempt(`${receiver.url}/hook`);
    expect(result.outcome).toBe("refused");
    expect(result.error).toBe(
      "redirected to http://169.254.169.254/latest/meta-data/: refused: 169.254.169.254 is a link-local address (which includes cloud metadata services); allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS",
    );
    expect(receiver.received).toHaveLength(1);
  });

  test("redirects are followed a few times only", async () => {
    receiver = startReceiver([() => new Response(null, { status: 307, headers: { location: "/again" } })]);
    expect(await attempt(`${receiver.url}/hook`)).toMatchObject({ outcome: "failed", status: 307, error: "too many redirects" });
    expect(receiver.received).toHaveLength(4);
  });

  test("a receiver that never answers fails at the timeout", async () => {
    receiver = startReceiver(["hang"]);
    const result = await attempt(`${receiver.url}/hook`, { timeoutMs: 300 });
    expect(result).toMatchObject({ outcome: "failed", error: "no answer within 0.3 s" });
    expect(result.durationMs).toBeGreaterThanOrEqual(250);
    expect(result.durationMs).toBeLessThan(5_000);
  });

  test("a large answer is read only up to the cap", async () => {
    let pulled = 0;
    const endless = new ReadableStream({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(64 * 1024));
      },
    });
    receiver = startReceiver([() => new Response(endless, { status: 200 })]);
    const result = await attempt(`${receiver.url}/hook`, { maxResponseBytes: 128 * 1024, timeoutMs: 3_000 });
    expect(result).toMatchObject({ outcome: "delivered", status: 200 });
    expect(result.durationMs).toBeLessThan(2_500); // it stopped reading; it did not wait for the timeout
    expect(pulled).toBeLessThan(1_000);
  });

  test("a secret that cannot sign is refused, nothing sent", async () => {
    receiver = startReceiver([204]);
    expect(await attempt(`${receiver.url}/hook`, { secret: "whsec_not base64!" })).toMatchObject({
      outcome: "refused",
      error: "the alert's webhook secret is not a whsec_ secret",
    });
    expect(receiver.received).toHaveLength(0);
  });

  test("a connection refused fails with the client's reason", async () => {
    receiver = startReceiver([204]);
    const url = `${receiver.url}/hook`;
    receiver.stop();
    const result = await attempt(url);
    expect(result.outcome).toBe("failed");
    expect(result.error).toBeTruthy();
  });
});
