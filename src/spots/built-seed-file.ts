/**
 * Where the build's first import of the default catalog is (./built-seed.ts; scripts/default-seed.ts writes it at
 * build). From source: dist/default-seed.json.gz when a build has made it, else null (the first start then plans the
 * import itself). In the compiled binary scripts/build.ts replaces this module with an import of the file
 * `with { type: "file" }`, which embeds it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

const built = join(import.meta.dir, "../../dist/default-seed.json.gz");
export const builtSeedFile: string | null = existsSync(built) ? built : null;
