/**
 * The access, console, embed and alerts rooms reach the database only through their stores' small asynchronous functions
 * (access/store.ts, console/store.ts, embed/store.ts, alerts/store.ts), so that a PostgreSQL store can sit beside the SQLite one.
 * Every statement, transaction and database import of theirs is in a store implementation (`drizzle-store.ts`, and
 * where a room has them, the `sqlite-store.ts` and `postgres-store.ts` that run it with what is theirs alone); read
 * from the sources, so a statement written anywhere else fails here before review.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/env";

const ROOMS = ["access", "console", "embed", "alerts"];
const isStoreImplementation = (file: string) => /(^|\/)(sqlite|postgres|drizzle)-store\.ts$/.test(file);

/** What reaching the database looks like in a module. */
const DATABASE_USE: Record<string, RegExp> = {
  "imports drizzle": /from\s+"drizzle-orm[^"]*"/,
  "imports a database client": /from\s+"bun:sqlite"|\bBun\.sql\b|\bnew SQL\(/,
  "imports the db room": /from\s+"(\.\.\/)+db(\/[^"]*)?"/,
  "runs a statement": /\.(get|all|run)\(\)|\.prepare\(|\b(db|tx)\.(select|insert|update|delete)\(/,
  "opens a transaction": /\bwriteTransaction\(|\.transaction\(/,
  // Handing the connection to a store's factory is how a room gets its store (the console makes its own).
  "holds the connection": /\.db\b|\$client\b/,
};
const STORE_FACTORY_CALL = /\b(sqlite|postgres)\w*Store\(\s*[\w.]+\s*\)/g;

const SRC = join(ROOT, "src");
const modules = ROOMS.flatMap((room) => [...new Bun.Glob(`${room}/**/*.ts`).scanSync(SRC)]).filter((file) => !file.endsWith(".test.ts"));

function usesOf(file: string, text = readFileSync(join(SRC, file), "utf8")): string[] {
  const found: string[] = [];
  text.split("\n").forEach((line, i) => {
    const code = line.replace(STORE_FACTORY_CALL, "");
    for (const [what, pattern] of Object.entries(DATABASE_USE)) if (pattern.test(code)) found.push(`${file}:${i + 1}: ${what}: ${line.trim()}`);
  });
  return found;
}

describe("the stores are the only way to the database", () => {
  test("access, console and embed modules other than the store implementations reach no database", () => {
    expect(modules.filter((file) => !isStoreImplementation(file)).flatMap((file) => usesOf(file))).toEqual([]);
  });

  test("each room has a store interface and a drizzle store implementing it, which any engine's store of the room runs", () => {
    for (const room of ROOMS) {
      expect(modules).toContain(`${room}/store.ts`);
      expect(readFileSync(join(SRC, room, "drizzle-store.ts"), "utf8")).toMatch(/from "\.\/store"/);
      for (const engine of ["sqlite", "postgres"]) {
        const file = `${room}/${engine}-store.ts`;
        if (modules.includes(file)) expect(readFileSync(join(SRC, file), "utf8")).toMatch(/from "\.\/drizzle-store"/);
      }
    }
  });

  test("the check sees what the store implementations do", () => {
    for (const room of ROOMS) {
      const uses = usesOf(`${room}/drizzle-store.ts`).map((use) => use.split(": ")[1]);
      expect(uses).toContain("imports drizzle");
      expect(uses).toContain("runs a statement");
    }
    expect(usesOf("x.ts", 'const row = db.select().from(accounts).where(eq(accounts.id, id)).get();')).toHaveLength(1);
    expect(usesOf("x.ts", "writeTransaction(this.app.db, () => null);").map((use) => use.split(": ")[1])).toEqual(["opens a transaction", "holds the connection"]);
    expect(usesOf("x.ts", "this.store = sqliteConsoleStore(app.db);")).toEqual([]);
  });
});
