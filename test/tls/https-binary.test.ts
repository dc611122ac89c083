/**
 * HTTPS by itself, through the compiled binary on unprivileged ports, against Debian's pebble with its mock DNS
 * (every name is 127.0.0.1): a first certificate, its renewal forced by a short life, the plain HTTP redirect, a
 * refusing ACME server; the operator's own certificate files swapped on SIGHUP and on change; operator mistakes.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, startServer, type RunningServer } from "../support/binary";
import { freePort, tempDir } from "../support/env";
import { makeCertificate, servedCertificate, startPebble, type Pebble } from "../support/pebble";
import { waitFor } from "../support/wait";

const DOMAINS = ["surf.test", "www.surf.test"];
const running: { stop(): Promise<unknown> }[] = [];
afterAll(async () => {
  await Promise.all(running.map((r) => r.stop()));
});

/** `serve --https` against `pebble`, on free ports. */
async function httpsServer(pebble: Pebble, httpPort: number, httpsPort: number): Promise<RunningServer> {
  const server = await startServer({
    port: null,
    args: ["--no-scheduler", "--https", DOMAINS.join(","), "--http-port", String(httpPort), "--https-port", String(httpsPort)],
    env: { SURFCAST_ACME_DIRECTORY: pebble.directoryUrl, SURFCAST_ACME_CA_FILE: pebble.caFile, SURFCAST_ACME_EMAIL: "ops@surf.test" },
  });
  running.push(server);
  return server;
}

const insecure = { tls: { rejectUnauthorized: false }, redirect: "manual" } as const;

describe("serve --https against pebble", () => {
  test("gets a first certificate, serves HTTPS with HSTS, redirects plain HTTP, and renews a short-lived certificate", async () => {
    const [httpPort, httpsPort] = [freePort(), freePort()];
    // 30 s certificates: renewal is due at two thirds of their life, 20 s in.
    const pebble = await startPebble({ httpPort, validitySeconds: 30 });
    running.push(pebble);
    const server = await httpsServer(pebble, httpPort, httpsPort);
    expect(server.url).toBe(`https://127.0.0.1:${httpsPort}`);
    await waitFor("the first certificate", () => server.output().includes("certificate in service"), 30_000, 100);
    const root = join(tempDir("pebble-root"), "root.pem");
    writeFileSync(root, await pebble.issuingRoot());
    const first = await servedCertificate(httpsPort, "www.surf.test", root);
    expect(first.verified).toBe(true);
    expect(first.subject).toContain("surf.test");

    const answer = await fetch(`https://127.0.0.1:${httpsPort}/healthz?verbose=1`, { ...insecure, headers: { host: "surf.test" } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("strict-transport-security")).toBe("max-age=31536000");
    const health = (await answer.json()) as { certificate?: { daysLeft: number; expires: string } };
    expect(health.certificate?.daysLeft).toBe(0);
    // Every route answers over HTTPS as over HTTP: the API's own refusal of a missing key, the document, a page.
    const keyless = await fetch(`https://127.0.0.1:${httpsPort}/v1/spots?q=pipe&limit=2`, { ...insecure, headers: { host: "surf.test" } });
    expect([keyless.status, ((await keyless.json()) as { error?: { code?: string } }).error?.code]).toEqual([401, "invalid_key"]);
    expect((await fetch(`https://127.0.0.1:${httpsPort}/openapi.json`, { ...insecure, headers: { host: "surf.test" } })).status).toBe(200);

    const redirect = await fetch(`http://127.0.0.1:${httpPort}/v1/spots?q=pipe&limit=2`, { redirect: "manual", headers: { host: "www.surf.test" } });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get("location")).toBe(`https://www.surf.test:${httpsPort}/v1/spots?q=pipe&limit=2`);

    const files = join(server.dataDir, "tls");
    for (const file of ["account.key", "surf.test.crt", "surf.test.key"]) expect(statSync(join(files, file)).mode & 0o777).toBe(0o600);

    // Renewed without a restart: a new certificate on the same port.
    await waitFor("the renewal", () => server.output().match(/certificate in service/g)!.length >= 2, 40_000, 200);
    await waitFor("the renewed certificate served", async () => (await servedCertificate(httpsPort, "surf.test", root)).serial !== first.serial, 5_000, 100);
    expect(server.output()).toContain("renewing the certificate");
    expect(await server.stop()).toBe(0);
  }, 120_000);

  test("an ACME server that refuses: one line naming the cause, the on-its-way page, no HTTPS", async () => {
    const [httpPort, httpsPort] = [freePort(), freePort()];
    // pebble validates on a port where nobody answers.
    const pebble = await startPebble({ httpPort: freePort() });
    running.push(pebble);
    const server = await httpsServer(pebble, httpPort, httpsPort);
    await waitFor("the failure", () => server.output().includes("could not get a certificate"), 30_000, 100);
    const lines = server.output().split("\n").filter((l) => l.includes("could not get a certificate"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("could not get a certificate for surf.test, www.surf.test: the ACME server could not fetch the challenge");
    expect(lines[0]).toContain(`port ${httpPort} (--http-port)`);
    expect(lines[0]).toContain("next attempt in 5 min");
    const page = await fetch(`http://127.0.0.1:${httpPort}/docs`, { headers: { host: "surf.test" } });
    expect(page.status).toBe(503);
    expect(await page.text()).toContain("certificate");
    expect(await fetch(`https://127.0.0.1:${httpsPort}/healthz`, insecure).then(() => "answered", () => "refused")).toBe("refused");
    expect(await server.stop()).toBe(0);
  }, 60_000);
});

describe("serve --tls-cert --tls-key", () => {
  test("serves the files on --port and serves new ones after SIGHUP and after a change", async () => {
    const dir = tempDir("tls-files");
    const first = makeCertificate(dir, "first", ["localhost", "first.test"]);
    const second = makeCertificate(dir, "second", ["localhost", "second.test"]);
    const live = { cert: join(dir, "live.crt"), key: join(dir, "live.key") };
    copyFileSync(first.cert, live.cert);
    copyFileSync(first.key, live.key);
    const metricsPort = freePort();
    const server = await startServer({ args: ["--no-scheduler", "--tls-cert", live.cert, "--tls-key", live.key], env: { SURFCAST_METRICS: "on", SURFCAST_METRICS_PORT: String(metricsPort) } });
    running.push(server);
    const port = Number(new URL(server.url).port);
    expect(server.url.startsWith("https://")).toBe(true);
    expect(await servedCertificate(port, "localhost", first.ca)).toMatchObject({ subject: expect.stringContaining("localhost"), verified: true });
    const health = await fetch(`https://localhost:${port}/healthz`, { tls: { ca: await Bun.file(first.ca).text() } });
    expect(health.status).toBe(200);
    expect(health.headers.get("strict-transport-security")).toBe("max-age=31536000");
    const expiry = async () => Number(/^surfcast_tls_certificate_expiry_timestamp_seconds (\d+)/m.exec(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text())?.[1]);
    expect(Math.abs((await expiry()) - (Date.now() / 1000 + 30 * 86_400))).toBeLessThan(3_600);
    const served = async () => (await servedCertificate(port, "localhost")).serial;
    const firstSerial = await served();

    // Swapped while the server watches: a new certificate without a signal.
    copyFileSync(second.key, live.key);
    copyFileSync(second.cert, live.cert);
    await waitFor("the changed files served", async () => (await served()) !== firstSerial, 10_000, 100);

    // Back to the first with SIGHUP (the change would do it too; the signal is what a renewal hook sends).
    copyFileSync(first.key, live.key);
    copyFileSync(first.cert, live.cert);
    server.proc.kill("SIGHUP");
    await waitFor("SIGHUP's certificate served", async () => (await served()) === firstSerial, 10_000, 100);

    // A broken file keeps the certificate served and says so.
    writeFileSync(live.cert, "not a certificate");
    server.proc.kill("SIGHUP");
    await waitFor("the refusal", () => server.output().includes("could not be reloaded; the previous certificate stays in use"), 10_000, 100);
    expect(await served()).toBe(firstSerial);
    expect(await server.stop()).toBe(0);
  }, 60_000);
});

describe("operator mistakes: one line, exit 2", () => {
  const dir = tempDir("tls-mistakes");
  const own = makeCertificate(dir, "own", ["localhost"]);
  test.each([
    ["--https with --tls-cert", ["--https", "surf.test", "--tls-cert", own.cert, "--tls-key", own.key], {}, "--https gets its own certificates and --tls-cert/--tls-key serve yours"],
    ["a missing certificate file", ["--tls-cert", join(dir, "missing.crt"), "--tls-key", own.key], {}, `--tls-cert ${join(dir, "missing.crt")} cannot be read (ENOENT)`],
    ["a certificate without its key", ["--tls-cert", own.cert], {}, "--tls-cert FILE and --tls-key FILE go together"],
    ["an unreadable CA file", ["--https", "surf.test", "--http-port", "8080", "--https-port", "8443"], { SURFCAST_ACME_CA_FILE: join(dir, "nope.pem") }, `SURFCAST_ACME_CA_FILE ${join(dir, "nope.pem")} cannot be read (ENOENT)`],
    ["a wildcard", ["--https", "*.surf.test"], {}, '"*.surf.test" is not a DNS name this server can get a certificate for'],
    ["a key that is not the certificate's", ["--tls-cert", own.cert, "--tls-key", own.cert], {}, "cannot be served"],
  ])("%s", (_, args, env, message) => {
    const r = cli(tempDir("tls-mistake"), ["serve", "--no-scheduler", ...args], env as Record<string, string>);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(message);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).not.toContain("    at ");
  });
});
