/**
 * Debian's pebble (an ACME test server) and pebble-challtestsrv (its mock DNS, answering 127.0.0.1 for every name),
 * on free ports, with no network: pebble validates HTTP-01 on `httpPort`, where the server under test listens.
 * Its own HTTPS listener has a certificate from a CA made here (`caFile`: what SURFCAST_ACME_CA_FILE trusts).
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, tempDir } from "./env";
import { waitFor } from "./wait";

export const PEBBLE = "/usr/bin/pebble";
export const CHALLTESTSRV = "/usr/bin/pebble-challtestsrv";

export function requirePebble(): void {
  if (!existsSync(PEBBLE) || !existsSync(CHALLTESTSRV)) throw new Error(`${PEBBLE} is missing: run "make test" (it installs Debian's pebble) or apt-get install pebble`);
}

function openssl(args: string[], cwd: string): void {
  const r = Bun.spawnSync(["openssl", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr.toString()}`);
}

/** A CA and a certificate it signed for `names` (files NAME.crt, NAME.key and ca.pem in `dir`). */
export function makeCertificate(dir: string, name: string, names: string[], ca = true): { cert: string; key: string; ca: string } {
  if (ca && !existsSync(join(dir, "ca.pem"))) openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "30", "-subj", "/CN=Surfcast test CA"], dir);
  writeFileSync(join(dir, `${name}.ext`), `subjectAltName=${names.map((n) => (/^[\d.]+$/.test(n) ? `IP:${n}` : `DNS:${n}`)).join(",")}`);
  openssl(["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${names[0]}`], dir);
  openssl(["x509", "-req", "-in", `${name}.csr`, "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", `${name}.crt`, "-days", "30", "-extfile", `${name}.ext`], dir);
  return { cert: join(dir, `${name}.crt`), key: join(dir, `${name}.key`), ca: join(dir, "ca.pem") };
}

export interface Pebble {
  directoryUrl: string;
  caFile: string;
  /** The roots pebble issues under (PEM), to verify what the server serves. */
  issuingRoot(): Promise<string>;
  output(): string;
  stop(): Promise<void>;
}

/** pebble validating HTTP-01 on `httpPort`; `validitySeconds` makes its certificates short-lived. */
export async function startPebble(opts: { httpPort: number; validitySeconds?: number }): Promise<Pebble> {
  requirePebble();
  const dir = tempDir("pebble");
  const tls = makeCertificate(dir, "pebble", ["localhost", "127.0.0.1"]);
  const [acmePort, managementPort, dnsPort, dnsManagementPort] = [freePort(), freePort(), freePort(), freePort()];
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: tls.cert,
        privateKey: tls.key,
        httpPort: opts.httpPort,
        tlsPort: freePort(),
        ocspResponderURL: "",
        externalAccountBindingRequired: false,
        ...(opts.validitySeconds ? { certificateValidityPeriod: opts.validitySeconds } : {}),
      },
    }),
  );
  let out = "";
  const decoder = new TextDecoder();
  const start = (cmd: string[], env: Record<string, string> = {}) => {
    const proc = Bun.spawn(cmd, { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
    for (const stream of [proc.stdout, proc.stderr]) void (async () => { for await (const chunk of stream as ReadableStream<Uint8Array>) out += decoder.decode(chunk); })();
    return proc;
  };
  const dns = start([CHALLTESTSRV, "-http01", "", "-https01", "", "-tlsalpn01", "", "-dns01", `127.0.0.1:${dnsPort}`, "-management", `127.0.0.1:${dnsManagementPort}`, "-defaultIPv6", ""]);
  const pebble = start([PEBBLE, "-config", join(dir, "config.json"), "-dnsserver", `127.0.0.1:${dnsPort}`], { PEBBLE_VA_NOSLEEP: "1" });
  const ca = await Bun.file(tls.ca).text();
  const directoryUrl = `https://localhost:${acmePort}/dir`;
  await waitFor(`pebble at ${directoryUrl}`, () => fetch(directoryUrl, { tls: { ca } }).then((r) => r.ok, () => false), 20_000, 100);
  return {
    directoryUrl,
    caFile: tls.ca,
    issuingRoot: () => fetch(`https://localhost:${managementPort}/roots/0`, { tls: { ca } }).then((r) => r.text()),
    output: () => out,
    async stop() {
      for (const proc of [pebble, dns]) proc.kill();
      await Promise.all([pebble.exited, dns.exited]);
    },
  };
}

/** The certificate a TLS port serves for `serverName`: its subject, serial, expiry and whether `caFile` verifies it for that name. */
export async function servedCertificate(port: number, serverName: string, caFile?: string): Promise<{ subject: string; serial: string; notAfter: string; verified: boolean }> {
  const verify = caFile ? ["-CAfile", caFile, "-verify_hostname", serverName] : [];
  const client = Bun.spawn(["openssl", "s_client", "-connect", `127.0.0.1:${port}`, "-servername", serverName, ...verify], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  client.stdin.end();
  const text = await new Response(client.stdout).text();
  const pem = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/.exec(text)?.[0] ?? "";
  const x509 = Bun.spawn(["openssl", "x509", "-noout", "-subject", "-serial", "-enddate"], { stdin: new TextEncoder().encode(pem), stdout: "pipe" });
  const fields = await new Response(x509.stdout).text();
  return {
    subject: /subject=\s*(.*)/.exec(fields)?.[1]?.trim() ?? "",
    serial: /serial=(.*)/.exec(fields)?.[1]?.trim() ?? "",
    notAfter: /notAfter=(.*)/.exec(fields)?.[1]?.trim() ?? "",
    verified: /Verify return code: 0 \(ok\)/.test(text),
  };
}
