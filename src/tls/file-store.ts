/**
 * The certificate store (store.ts) of one server: files of the data directory, readable by the server's user only
 * (the certificates' private keys and the ACME account key), and the challenges in memory (this server answers them).
 */
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { CertificateStore } from "./store";

/** Only the server's user may read a private key. */
const PRIVATE = 0o600;

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return null;
    throw err;
  }
}

/** Written beside and renamed over: a reader (or a crash) never sees half a file. */
async function writePrivate(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, text, { mode: PRIVATE });
  await chmod(temporary, PRIVATE);
  await rename(temporary, path);
}

/** `<data dir>/tls/`: account.key, and NAME.crt with NAME.key per certificate. */
export function fileCertificateStore(dataDir: string): CertificateStore {
  const dir = join(dataDir, "tls");
  const challenges = new Map<string, string>();
  const ready = mkdir(dir, { recursive: true, mode: 0o700 });
  const path = (file: string) => join(dir, file);
  return {
    async accountKey() {
      await ready;
      return readOrNull(path("account.key"));
    },
    async saveAccountKey(pem) {
      await ready;
      await writePrivate(path("account.key"), pem);
    },
    async certificate(name) {
      await ready;
      const [cert, key] = await Promise.all([readOrNull(path(`${name}.crt`)), readOrNull(path(`${name}.key`))]);
      return cert !== null && key !== null ? { cert, key } : null;
    },
    async saveCertificate(name, pair) {
      await ready;
      // The key first: a certificate on disk always has its key beside it.
      await writePrivate(path(`${name}.key`), pair.key);
      await writePrivate(path(`${name}.crt`), pair.cert);
    },
    publishChallenge: async (token, keyAuthorization) => void challenges.set(token, keyAuthorization),
    withdrawChallenge: async (token) => void challenges.delete(token),
    challenge: async (token) => challenges.get(token) ?? null,
  };
}
