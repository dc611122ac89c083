/**
 * The maps of the house stay true: docs/architecture.md and test/README.md name no file or folder that does not
 * exist, and leave out no room of src/ nor any test of one. Read from the documents and the tree, so a renamed
 * file or a new room without its line fails here.
 */
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../support/env";

const ARCHITECTURE = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
const TEST_README = readFileSync(join(ROOT, "test/README.md"), "utf8");
const folders = (dir: string) => readdirSync(join(ROOT, dir), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
const ROOMS = folders("src");
const TEST_FOLDERS = folders("test").filter((f) => !["support", "fixtures", "generated"].includes(f));

/** Backticked names that look like a path: a slash inside, a `.ts` file or a folder; no globs or URL paths. */
function pathsIn(text: string): string[] {
  const names = [...text.matchAll(/`([a-z][\w./-]*\/[\w./-]*)`/g)].map((m) => m[1]!);
  return [...new Set(names.filter((n) => !n.includes("*") && (n.endsWith(".ts") || n.endsWith("/"))))];
}

/** Found from the repository's root, from src/ or from test/, as the documents write them. */
const exists = (name: string) => ["", "src/", "test/"].some((base) => existsSync(join(ROOT, base, name)));

describe("docs/architecture.md", () => {
  test("every file and folder it names exists", () => {
    expect(pathsIn(ARCHITECTURE).filter((p) => !exists(p))).toEqual([]);
  });

  test("every room of src/ is in the folder map and in the layer table", () => {
    const map = ARCHITECTURE.slice(ARCHITECTURE.indexOf("```"), ARCHITECTURE.indexOf("```", ARCHITECTURE.indexOf("```") + 3));
    expect(ROOMS.filter((room) => !new RegExp(`^  ${room}/`, "m").test(map))).toEqual([]);
    const layerRows = ARCHITECTURE.split("\n").filter((l) => /^\| \d+ \|/.test(l)).map((l) => l.split("|")[2]!);
    expect(ROOMS.filter((room) => !layerRows.some((cell) => cell.split(",").map((r) => r.trim()).includes(room)))).toEqual([]);
  });
});

describe("test/README.md", () => {
  test("every file and folder it names exists", () => {
    expect(pathsIn(TEST_README).filter((p) => !exists(p))).toEqual([]);
  });

  test("every integration test folder is in the table", () => {
    expect(TEST_FOLDERS.filter((f) => !TEST_README.includes(`\`${f}/\``))).toEqual([]);
  });

  test("every room's unit tests are named in its row", () => {
    const missing: string[] = [];
    for (const room of ROOMS) {
      const units = [...new Bun.Glob("**/*.test.ts").scanSync(join(ROOT, "src", room))].map((f) => f.replace(/\.test\.ts$/, ""));
      if (units.length === 0) continue;
      const row = TEST_README.split("\n").find((l) => l.startsWith(`| ${room} |`));
      const cell = row?.split("|")[2] ?? "";
      // A nested test is named by its folder (`alerts/delivery/`) and its own name in the same row.
      const named = (unit: string) => {
        const slash = unit.lastIndexOf("/");
        const folderNamed = slash === -1 || cell.includes(`${room}/${unit.slice(0, slash + 1)}`);
        return folderNamed && new RegExp(`\\b${unit.slice(slash + 1)}\\b`).test(cell);
      };
      for (const unit of units) if (!named(unit)) missing.push(`${room}/${unit}`);
    }
    expect(missing).toEqual([]);
  });
});
