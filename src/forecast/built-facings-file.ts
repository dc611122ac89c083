/**
 * Where the build's facings are (./built-facings.ts; scripts/facings.ts writes them at build). From source:
 * dist/facings.json.gz when a build has made it, else null (every facing is then computed from the land index). In the
 * compiled binary scripts/build.ts replaces this module with an import of the file `with { type: "file" }`, which
 * embeds it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

const built = join(import.meta.dir, "../../dist/facings.json.gz");
export const builtFacingsFile: string | null = existsSync(built) ? built : null;
