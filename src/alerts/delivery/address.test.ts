import { describe, expect, test } from "bun:test";
import { addressClass, checkTarget, judgedAs, parseAllowedNetworks, type AllowedNetworks, type OwnAddresses, type Resolver } from "./address";

const NONE = parseAllowedNetworks("");
const dns: Record<string, string[]> = {
  "hooks.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
  "mixed.example.com": ["93.184.215.14", "10.0.0.7"],
  "mixed6.example.com": ["2606:2800:21f:cb07:6820:80da:af6b:8b2c", "::1"],
  "ha.shop.lan": ["192.168.1.20"],
  "metadata.example.com": ["169.254.169.254"],
  localhost: ["127.0.0.1", "::1"],
  "db.corp": ["10.2.3.4"],
  "compat.example.com": ["::7f00:1"],
  "nat64.example.com": ["64:ff9b::a02:304"],
};
const NOBODY: OwnAddresses = { ports: new Set(), addresses: [] };

/** Checks `url`: ok when `reason` is null, else refused for that reason. */
async function expectCheck(url: string, networks: AllowedNetworks, own: OwnAddresses, reason: string | null): Promise<void> {
  const check = await checkTarget(url, networks, resolver, own);
  if (reason === null) expect(check).toMatchObject({ ok: true });
  else expect(check).toEqual({ ok: false, refused: true, reason });
}
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
    // IPv4-compatible (::/96 but :: and ::1): deprecated, refused whatever it carries
    ["::127.0.0.1", "an IPv4-compatible address (deprecated)"],
    ["::169.254.169.254", "an IPv4-compatible address (deprecated)"],
    ["::10.0.0.1", "an IPv4-compatible address (deprecated)"],
    ["::93.184.215.14", "an IPv4-compatible address (deprecated)"],
    // every other form carrying an IPv4 address is judged as it
    ["::ffff:0:7f00:1", "a loopback address"],
    ["::ffff:0:5db8:d70e", null],
    ["64:ff9b::7f00:1", "a loopback address"],
    ["64:ff9b::a9fe:a9fe", "a link-local address (which includes cloud metadata services)"],
    ["64:ff9b::5db8:d70e", null],
    ["64:ff9b:1::a00:1", "a private address"],
    ["64:ff9b:1::5db8:d70e", null],
    ["2002:7f00:1::1", "a loopback address"],
    ["2002:a00:1::1", "a private address"],
    ["2002:5db8:d70e::1", null],
    // Teredo: server 65.54.227.120, client the last 32 bits inverted
    ["2001:0:4136:e378:8000:63bf:80ff:fffe", "a loopback address"],
    ["2001:0:4136:e378:8000:63bf:5601:5656", "a link-local address (which includes cloud metadata services)"],
    ["2001:0:4136:e378:8000:63bf:a247:28f1", null],
  ])("%s → %p", (address, expected) => {
    expect(addressClass(address)).toBe(expected);
  });
});

describe("judgedAs", () => {
  test.each([
    ["::ffff:127.0.0.1", "127.0.0.1"],
    ["64:ff9b::192.0.2.33", "192.0.2.33"],
    ["2002:c000:221::1", "192.0.2.33"],
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "192.0.2.45"],
    ["2606:4700:4700::1111", "2606:4700:4700::1111"],
    ["10.0.0.1", "10.0.0.1"],
  ])("%s → %s", (address, judged) => {
    expect(judgedAs(address).toString()).toBe(judged);
  });
});

describe("parseAllowedNetworks", () => {
  const shown = (text: string) => parseAllowedNetworks(text).map((n) => `${n.network.toString()}/${n.bits}${n.port === null ? "" : ` port ${n.port}`}`);

  test("CIDRs and bare addresses of both families, spaces and empty entries ignored", () => {
    expect(shown(" 192.168.1.0/24, ,fd00::/8,10.0.0.5 ")).toEqual(["192.168.1.0/24", "fd00::/8", "10.0.0.5/32"]);
    expect(parseAllowedNetworks(undefined)).toEqual([]);
  });

  test("an entry may name its one port; an IPv6 one then needs brackets", () => {
    expect(shown("127.0.0.1:8123,192.168.1.0/24:80,[fd00::1]:8123,[fd00::/8]:443,[fd00::2],fd00::3")).toEqual([
      "127.0.0.1/32 port 8123",
      "192.168.1.0/24 port 80",
      "fd00::1/128 port 8123",
      "fd00::/8 port 443",
      "fd00::2/128",
      "fd00::3/128",
    ]);
  });

  test.each(["192.168.1.0/33", "lan", "192.168.1/24x", "fd00::/129", "10.0.0.0/8;", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:", "[fd00::1]:x", "fd00::1]:80", "lan:80"])("%s → an error naming it", (entry) => {
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
    ["http://localhost:8123/", NONE, "refused: localhost resolves to a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    // Every address counts: 127.0.0.1 is allowed, ::1 is not.
    ["http://localhost:8123/", allowed, "refused: localhost resolves to a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://[::1]:8123/", NONE, "refused: ::1 is a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://[::ffff:7f00:1]/", NONE, "refused: ::ffff:7f00:1 is a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://[::ffff:7f00:1]/", allowed, null],
    ["http://[fd00::5]/", allowed, null],
    ["http://[fe80::1]/", allowed, "refused: fe80::1 is a link-local address (which includes cloud metadata services); allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://2130706433/", NONE, "refused: 127.0.0.1 is a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://0x7f.1/", NONE, "refused: 127.0.0.1 is a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://ha.shop.lan:8123/api/webhook/x", NONE, "refused: ha.shop.lan resolves to a private address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["http://ha.shop.lan:8123/api/webhook/x", allowed, null],
    ["http://metadata.example.com/latest/meta-data/", allowed, "refused: metadata.example.com resolves to a link-local address (which includes cloud metadata services); allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["https://mixed.example.com/", NONE, "refused: mixed.example.com resolves to a private address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["https://mixed6.example.com/", NONE, "refused: mixed6.example.com resolves to a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ["ftp://hooks.example.com/", NONE, "refused: only http and https URLs can receive webhooks, not ftp:"],
    ["file:///etc/passwd", NONE, "refused: only http and https URLs can receive webhooks, not file:"],
    ["not a url", NONE, 'refused: "not a url" is not a URL'],
  ])("%s", (url, networks, reason) => expectCheck(url, networks, NOBODY, reason));

  test("a refusal of a name says what kind of address it resolves to, never which", async () => {
    for (const name of ["db.corp", "nat64.example.com"]) {
      await expectCheck(`http://${name}/`, NONE, NOBODY, `refused: ${name} resolves to a private address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS`);
    }
    await expectCheck("http://compat.example.com/", allowed, NOBODY, "refused: compat.example.com resolves to an IPv4-compatible address (deprecated)");
  });

  test("an IPv6 form carrying an IPv4 address is refused and allowed as that address; an IPv4-compatible one never allowed", async () => {
    const compatible = (address: string) => `refused: ${address} is an IPv4-compatible address (deprecated)`;
    for (const networks of [NONE, allowed]) await expectCheck("http://[::127.0.0.1]:8123/", networks, NOBODY, compatible("::7f00:1"));
    await expectCheck("http://[::169.254.169.254]/", NONE, NOBODY, compatible("::a9fe:a9fe"));
    await expectCheck("http://[64:ff9b::7f00:1]:8123/", NONE, NOBODY, "refused: 64:ff9b::7f00:1 is a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS");
    await expectCheck("http://[64:ff9b::7f00:1]:8123/", allowed, NOBODY, null);
    await expectCheck("http://[2002:c0a8:114::1]/", allowed, NOBODY, null);
    await expectCheck("http://[64:ff9b::5db8:d70e]/", NONE, NOBODY, null);
  });

  describe("an entry with a port allows that port only", () => {
    const ports = parseAllowedNetworks("127.0.0.1:8123,192.168.1.0/24:80,[fd00::1]:8123");
    test.each([
      ["http://127.0.0.1:8123/", null],
      ["http://127.0.0.1:8124/", "refused: 127.0.0.1 is a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
      ["http://127.0.0.1/", "refused: 127.0.0.1 is a loopback address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
      ["http://ha.shop.lan/", null],
      ["https://ha.shop.lan/", "refused: ha.shop.lan resolves to a private address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
      ["http://[fd00::1]:8123/", null],
      ["http://[fd00::1]:22/", "refused: fd00::1 is a private (unique local) address; allow it with SURFCAST_WEBHOOK_ALLOWED_NETWORKS"],
    ])("%s", (url, reason) => expectCheck(url, ports, NOBODY, reason));
  });

  describe("the server's own listening ports are refused, allowed network or not", () => {
    const own: OwnAddresses = { ports: new Set([8080]), addresses: ["192.168.1.20", "fd00::5"] };
    const everything = parseAllowedNetworks("0.0.0.0/0,::/0");
    test.each([
      ["http://127.0.0.1:8080/v1/usage", "refused: 127.0.0.1 port 8080 is this server's own address"],
      ["http://127.9.9.9:8080/", "refused: 127.9.9.9 port 8080 is this server's own address"],
      ["http://[::1]:8080/", "refused: ::1 port 8080 is this server's own address"],
      ["http://[::ffff:127.0.0.1]:8080/", "refused: ::ffff:7f00:1 port 8080 is this server's own address"],
      ["http://0.0.0.0:8080/", "refused: 0.0.0.0 port 8080 is this server's own address"],
      ["http://localhost:8080/", "refused: localhost port 8080 is this server's own address"],
      ["http://ha.shop.lan:8080/", "refused: ha.shop.lan port 8080 is this server's own address"],
      ["http://[fd00::5]:8080/", "refused: fd00::5 port 8080 is this server's own address"],
      ["http://127.0.0.1:8123/", null],
      ["http://192.168.1.21:8080/", null],
    ])("%s", (url, reason) => expectCheck(url, everything, own, reason));
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
