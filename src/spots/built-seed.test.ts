import { expect, test } from "bun:test";
import { readBuiltSeed } from "./built-seed";
import { builtSeedFile } from "./built-seed-file";
import { catalogDigest, defaultCatalogDigest, defaultRecords, readDefaultCatalog } from "./default-catalog";
import { planImport } from "./import";

test("the build's seed is what importing the default catalog into an empty database adds, spot for spot", () => {
  expect(builtSeedFile).not.toBeNull(); // `make test` builds first
  const seed = readBuiltSeed(defaultCatalogDigest());
  const planned = planImport([], defaultRecords(), true).add;
  expect(seed).toHaveLength(5877);
  expect(seed).toEqual(planned);
});

test("a seed made from another catalog, or none at all, is not used", () => {
  expect(readBuiltSeed("not-this-catalog")).toBeNull();
  expect(readBuiltSeed(defaultCatalogDigest(), null)).toBeNull();
});

test("the digest read from the file's bytes is the digest of its text", () => {
  expect(defaultCatalogDigest()).toBe(catalogDigest(readDefaultCatalog()));
});
