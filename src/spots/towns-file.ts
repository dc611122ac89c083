/**
 * Where the place-name gazetteer is (scripts/towns.ts writes it at build). From source: dist/towns.json when
 * `make build` has made it, else null (search then has no place-name tier). In the compiled binary
 * scripts/build.ts replaces this module with an import of the file `with { type: "file" }`, which embeds it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

const built = join(import.meta.dir, "../../dist/towns.json");
export const townsFile: string | null = existsSync(built) ? built : null;
