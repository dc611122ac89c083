import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../../test/support/env";
import { fileCertificateStore } from "./file-store";

describe("data directory certificate store", () => {
  test("keeps the account key and certificates, readable by the server's user only", async () => {
    const dataDir = tempDir("tls-store");
    const store = fileCertificateStore(dataDir);
    expect(await store.accountKey()).toBeNull();
    expect(await store.certificate("surf.example.com")).toBeNull();
    await store.saveAccountKey("ACCOUNT");
    await store.saveCertificate("surf.example.com", { cert: "CERT", key: "KEY" });
    const again = fileCertificateStore(dataDir);
    expect(await again.accountKey()).toBe("ACCOUNT");
    expect(await again.certificate("surf.example.com")).toEqual({ cert: "CERT", key: "KEY" });
    for (const file of ["account.key", "surf.example.com.crt", "surf.example.com.key"]) expect(statSync(join(dataDir, "tls", file)).mode & 0o777).toBe(0o600);
  });
});
