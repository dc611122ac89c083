import { describe, expect, test } from "bun:test";
import { addressClass, checkTarget, parseAllowedNetworks, type Resolver } from "./address";

const NONE = parseAllowedNetworks("");
const dns: Record<string, string[]> = {
  "hooks.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
  "mixed.example.com": ["93.184.215.14", "10.0.0.7"],
  "mixed6.example.com": ["2606:2800:21f:cb07:6820:80da:af6b:8b2c", "::1"],
  "ha.shop.lan": ["192.168.1.20"],
  "metadata.example.com": ["169.254.169.254"],
  localhost: ["127.0.0.1", "::1"],
};
const resolver: Resolver = async (host) => {
  const found = dns[host];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
  return found;
};

describe("addressClass", () => {
  test.each([
    ["93.184.215.14", null],
    ["8.8.8.8", null],
    ["2606:4700:4700::1111", null],
    ["127.0.0.1", "a loopback address"],
    ["127.45.1.2", "a loopback address"],
    ["10.1.2.3", "a private address"],
    ["172.16.0.1", "a private address"],
    ["172.31.255.255", "a private address"],
    ["172.32.0.1", null],
    ["192.168.0.1", "a private address"],
    ["169.254.169.254", "a link-local address (which includes cloud metadata services)"],
    ["0.0.0.0", "an unspecified address"],
    ["100.64.0.1", "a carrier-grade NAT address"],
    ["224.0.0.1", "a multicast address"],
    ["255.255.255.255", "a broadcast address"],
    ["192.0.2.1", "a reserved address"],
    ["240.0.0.1", "a reserved address"],
    ["::1", "a loopback address"],
    ["::", "an unspecified address"],
    ["fc00::1", "a private (unique local) address"],
    ["fd12:3456::1", "a private (unique local) address"],
    ["fe80::1", "a link-local address (which includes cloud metadata services)"],
    ["ff02::1", "a multicast address"],
    ["::ffff:127.0.0.1", "a loopback address"],
    ["::ffff:10.0.0.1", "a private address"],
    ["::ffff:169.254.169.254", "a link-local address (which includes cloud metadata services)"],
    ["::ffff:93.184.215.14", null],
    ["::127.0.0.1", "a loopback address"],
    ["::ffff:0:7f00:1", "an IPv4-translated address"],
    ["64:ff9b::7f00:1", "a NAT64 address"],
    ["2002:7f00:1::1", "a 6to4 address"],
  ])("%s → %p", (address, expected) => {
    expect(addressClass(address)).toBe(expected);
  });
});

describe("parseAllowedNetworks", () => {
  test("CIDRs and bare addresses of both families, spaces and empty entries ignored", () => {
    expect(parseAllowedNetworks(" 192.168.1.0/24, ,fd00::/8,10.0.0.5 ").map(([a, bits]) => `${a.toString()}/${bits}`)).toEqual([
      "192.168.1.0/24",
      "fd00::/8",
      "10.0.0.5/32",
    ]);
    expect(parseAllowedNetworks(undefined)).toEqual([]);
  });

  test.each(["192.168.1.0/33", "lan", "192.168.1/24x", "fd00::/129", "10.0.0.0/8;"])("%s → an error naming it", (entry) => {
    expect(() => parseAllowedNetworks(`127.0.0.1/32,${entry}`)).toThrow(`SURFCAST_WEBHOOK_ALLOWED_NETWORKS: "${entry}" is not`);
  });
});

describe("checkTarget", () => {
  const allowed = parseAllowedNetworks("192.168.1.0/24,127.0.0.1/32,fd00::/8");

  test.each([
    // url, allowed, expected reason (null = ok)
    ["https://hooks.example.com/surf", NONE, null],
    ["http://93.184.215.14:8080/x", NONE, null],
    ["http://127.0.0.1:8123/api/webhook/x", NONE, "refused: 127.0.0.1 is a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://127.0.0.1:8123/api/webhook/x", allowed, null],
    ["http://127.0.0.2/", allowed, "refused: 127.0.0.2 is a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://localhost:8123/", NONE, "refused: localhost resolves to 127.0.0.1, a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    // Every address counts: 127.0.0.1 is allowed, ::1 is not.
    ["http://localhost:8123/", allowed, "refused: localhost resolves to ::1, a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://[::1]:8123/", NONE, "refused: ::1 is a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://[::ffff:7f00:1]/", NONE, "refused: ::ffff:7f00:1 is a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://[::ffff:7f00:1]/", allowed, null],
    ["http://[fd00::5]/", allowed, null],
    ["http://[fe80::1]/", allowed, "refused: fe80::1 is a link-local address (which includes cloud metadata services); allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://2130706433/", NONE, "refused: 127.0.0.1 is a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://0x7f.1/", NONE, "refused: 127.0.0.1 is a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://ha.shop.lan:8123/api/webhook/x", NONE, "refused: ha.shop.lan resolves to 192.168.1.20, a private address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://ha.shop.lan:8123/api/webhook/x", allowed, null],
    ["http://metadata.example.com/latest/meta-data/", allowed, "refused: metadata.example.com resolves to 169.254.169.254, a link-local address (which includes cloud metadata services); allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["https://mixed.example.com/", NONE, "refused: mixed.example.com resolves to 10.0.0.7, a private address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["https://mixed6.example.com/", NONE, "refused: mixed6.example.com resolves to ::1, a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["ftp://hooks.example.com/", NONE, "refused: only http and https URLs can receive webhooks, not ftp:"],
    ["file:///etc/passwd", NONE, "refused: only http and https URLs can receive webhooks, not file:"],
    ["not a url", NONE, 'refused: "not a url" is not a URL'],
  ])("%s", async (url, networks, reason) => {
    const check = await checkTarget(url, networks, resolver);
    if (reason === null) expect(check).toMatchObject({ ok: true });
    else expect(check).toEqual({ ok: false, refused: true, reason });
  });

  test("a name that does not resolve is not refused (it may resolve later), but not ok", async () => {
    expect(await checkTarget("https://nowhere.example/", NONE, resolver)).toEqual({
      ok: false,
      refused: false,
      reason: "nowhere.example does not resolve (ENOTFOUND)",
    });
  });

  test("every resolved address is returned for the caller to connect to", async () => {
    const check = await checkTarget("https://hooks.example.com/surf", NONE, resolver);
    expect(check.ok && check.addresses).toEqual(dns["hooks.example.com"]!);
  });

  test("the system resolver is the default (an address literal needs none)", async () => {
    expect((await checkTarget("http://127.0.0.1/", NONE)).ok).toBe(false);
  });
});
