/**
 * Operator mistakes and broken environments at start-up, through the compiled binary: one line on stderr,
 * exit 2, no stack trace, and no file changed. Read-only and full disks are real tmpfs mounts (the suite runs
 * as root); those tests skip, saying so, where mounting is not allowed.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cli, createKey } from "../support/binary";
import { tempDir } from "../support/env";
import { closeDatabase, databaseFailure, databasePath, openDatabase } from "../../src/db";
import { seedPlans } from "../../src/access/sqlite-store";
import { UserError } from "../../src/core/errors";

/** The contract for every failure here: exactly one line, exit 2, no stack. */
function expectOneLine(r: { code: number; stderr: string }, says: string): void {
  expect(r.code).toBe(2);
  expect(r.stderr).toContain(says);
  expect(r.stderr).not.toContain("    at ");
  expect(r.stderr.trim().split("\n")).toHaveLength(1);
}

/** Every file of a directory with its bytes, to compare before and after. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(readdirSync(dir).map((f) => [f, new Bun.CryptoHasher("sha256").update(readFileSync(join(dir, f))).digest("hex")]));
}

const mounts: string[] = [];
function tmpfs(options: string): string | null {
  const dir = tempDir("mnt");
  const r = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", options, "tmpfs", dir], { stderr: "pipe" });
  if (r.exitCode !== 0) {
    console.warn(`SKIPPED: cannot mount a tmpfs here (${r.stderr.toString().trim()}); read-only/full-disk start-up untested`);
    return null;
  }
  mounts.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of mounts) Bun.spawnSync(["umount", "-l", dir]);
});

describe("start-up failures (compiled binary)", () => {
  test("port already in use: one line, exit 2, the database untouched", () => {
    const dir = tempDir("port");
    createKey(dir);
    const before = snapshot(dir);
    const taken = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    try {
      const r = cli(dir, ["serve", "--host", "127.0.0.1", "--port", String(taken.port)]);
      expectOneLine(r, `port ${taken.port} on 127.0.0.1 is already in use`);
    } finally {
      taken.stop(true);
    }
    expect(snapshot(dir)).toEqual(before);
  });

  test("a missing data dir is created 0700 with a notice, the database 0600; a missing parent is refused", () => {
    const dir = join(tempDir("fresh"), "data");
    const r = cli(dir, ["accounts", "create", "first@example.com", "--plan", "starter"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(`created the data directory ${dir} (mode 0700)`);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "surfcast.db")).mode & 0o777).toBe(0o600);

    const typo = join(tempDir("typo"), "no", "data");
    expectOneLine(cli(typo, ["accounts", "create", "first@example.com", "--plan", "starter"]), `data directory ${typo} does not exist, nor does its parent`);
    expect(existsSync(join(typo, ".."))).toBe(false);
  });

  test("a corrupt database file stays byte-for-byte as it was", () => {
    const dir = tempDir("corrupt");
    const garbage = Buffer.from(Array.from({ length: 16384 }, (_, i) => (i * 7919) % 251));
    writeFileSync(join(dir, "surfcast.db"), garbage);
    const before = snapshot(dir);
    for (const args of [["serve", "--port", "0"], ["accounts", "list"]]) {
      expectOneLine(cli(dir, args), "surfcast.db is not a readable Surfcast database");
    }
    expect(snapshot(dir)).toEqual(before);
  });

  test("keys revoke given the secret key instead of its id says so and names the id", () => {
    const dir = tempDir("revoke");
    const key = createKey(dir);
    const r = cli(dir, ["keys", "revoke", key]);
    expectOneLine(r, "that is the secret key itself, not its id");
    expect(r.stderr).not.toContain(key);
    const id = /keys revoke (key_[0-9a-f]+)/.exec(r.stderr)![1]!;
    expect(cli(dir, ["keys", "revoke", id]).code).toBe(0);
  });

  test("a read-only data dir: one line, exit 2, nothing changed", () => {
    const mnt = tmpfs("size=8m");
    if (!mnt) return;
    createKey(mnt);
    expect(Bun.spawnSync(["mount", "-o", "remount,ro", mnt]).exitCode).toBe(0);
    const before = snapshot(mnt);
    expectOneLine(cli(mnt, ["serve", "--port", "0"]), `data directory ${mnt} is on a read-only file system`);
    expectOneLine(cli(mnt, ["keys", "create", "dev@example.com", "--name", "x"]), "read-only");
    expect(snapshot(mnt)).toEqual(before);
  });

  test("a full disk, found before or during the first write: one line, exit 2", () => {
    for (const size of ["256k", "1100k"]) {
      const mnt = tmpfs(`size=${size}`);
      if (!mnt) return;
      const dir = join(mnt, "data");
      mkdirSync(dir);
      if (size === "1100k") writeFileSync(join(mnt, "filler"), Buffer.alloc(64 * 1024));
      const r = cli(dir, ["serve", "--port", "0"]);
      expectOneLine(r, "is full");
      expect(r.stderr).toContain("free some space");
      if (size === "256k") expect(readdirSync(dir)).toEqual([]); // refused before anything was written
    }
  });
});

describe("a write lock held by another process for too long", () => {
  test("becomes one clear line, not SQLite's bare 'database is locked' (the console commands' catch-all maps it)", () => {
    const dir = tempDir("busy");
    const holder = openDatabase(dir);
    const waiter = openDatabase(dir, 50);
    holder.$client.exec("BEGIN IMMEDIATE");
    try {
      let failure: unknown;
      try {
        seedPlans(waiter);
      } catch (err) {
        failure = databaseFailure(err, databasePath(dir));
      }
      expect(failure).toBeInstanceOf(UserError);
      expect((failure as Error).message).toContain("stayed locked by another process's write for too long");
      expect((failure as Error).message.split("\n")).toHaveLength(1);
    } finally {
      holder.$client.exec("ROLLBACK");
      closeDatabase(holder);
      closeDatabase(waiter);
    }
  });
});
