/**
 * `serve --https` on three servers sharing one PostgreSQL database, through the compiled binary against Debian's
 * pebble: one server orders under the job lease, the others serve the certificate it stored, and a renewal (forced by
 * 30-second certificates) is one order again, served by every server without a restart. pebble validates through a
 * relay that hands its connections to the servers in turn, as a load balancer would: the challenge is answered by
 * servers that did not order it.
 */
import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describeWithCluster, startCluster, type Cluster } from "../support/cluster";
import { freePort, tempDir } from "../support/env";
import { servedCertificate, startPebble } from "../support/pebble";
import { startTcpProxy } from "../support/tcp-proxy";
import { waitFor } from "../support/wait";

const DOMAINS = ["surf.test", "www.surf.test"];
const NODES = ["a", "b", "c"];
const closing: { close(): Promise<unknown> }[] = [];
afterAll(async () => {
  for (const item of closing.reverse()) await item.close();
});

describeWithCluster("serve --https on several servers", () => {
  test("one order among three servers, the same certificate on each, and one renewal served by all", async () => {
    const ports = new Map(NODES.map((name) => [name, { http: freePort(), https: freePort() }]));
    const relay = await startTcpProxy([...ports.values()].map(({ http }) => ({ host: "127.0.0.1", port: http })));
    closing.push(relay);
    // 30 s certificates: renewal is due at two thirds of their life, 20 s in.
    const pebble = await startPebble({ httpPort: relay.port, validitySeconds: 30 });
    closing.push({ close: () => pebble.stop() });
    const cluster: Cluster = await startCluster({
      nodes: NODES.length,
      args: ["--no-scheduler"],
      env: { SURFCAST_ACME_DIRECTORY: pebble.directoryUrl, SURFCAST_ACME_CA_FILE: pebble.caFile, SURFCAST_ACME_EMAIL: "ops@surf.test" },
      listen: (name) => {
        const own = ports.get(name)!;
        return { args: ["--https", DOMAINS.join(","), "--http-port", String(own.http), "--https-port", String(own.https)], url: `https://127.0.0.1:${own.https}` };
      },
    });
    closing.push(cluster);
    const issued = () => pebble.output().match(/Issued certificate serial/g)?.length ?? 0;
    const inService = (name: string) => cluster.nodes.find((n) => n.name === name)!.output().match(/certificate in service/g)?.length ?? 0;
    const orders = () => cluster.nodes.map((n) => n.output().match(/ordering a certificate|renewing the certificate/g)?.length ?? 0);
    const root = join(tempDir("pebble-root"), "root.pem");

    await waitFor("every server's first certificate", () => NODES.every((name) => inService(name) >= 1), 30_000, 100);
    writeFileSync(root, await pebble.issuingRoot());
    const served = () => Promise.all([...ports.values()].map(({ https }) => servedCertificate(https, "surf.test", root)));
    const first = await served();
    expect(issued()).toBe(1);
    expect(orders().toSorted()).toEqual([0, 0, 1]);
    expect(first.map((c) => c.verified)).toEqual([true, true, true]);
    expect(new Set(first.map((c) => c.serial)).size).toBe(1);

    // Renewed by one, served by all, none restarted.
    await waitFor("every server's renewed certificate", () => NODES.every((name) => inService(name) >= 2), 40_000, 200);
    const renewed = await served();
    expect(issued()).toBe(2);
    expect(orders().reduce((a, b) => a + b)).toBe(2);
    expect(renewed.map((c) => c.verified)).toEqual([true, true, true]);
    expect(new Set(renewed.map((c) => c.serial)).size).toBe(1);
    expect(renewed[0]!.serial).not.toBe(first[0]!.serial);
    // Each round: one server ordered, two took what it stored.
    expect(cluster.nodes.map((n) => n.output().match(/certificate in service.*by another server/g)?.length ?? 0).reduce((a, b) => a + b)).toBe(4);
    expect(await Promise.all(cluster.nodes.map((n) => n.stop()))).toEqual([0, 0, 0]);
  }, 150_000);
});
