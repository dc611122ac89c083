/**
 * Where the build's tide station choices are (./built-choices.ts; scripts/tide-choices.ts writes them at build). From
 * source: dist/tide-choices.json.gz when a build has made it, else null (every station is then chosen with the tide
 * database). In the compiled binary scripts/build.ts replaces this module with an import of the file
 * `with { type: "file" }`, which embeds it.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

const built = join(import.meta.dir, "../../dist/tide-choices.json.gz");
export const builtChoicesFile: string | null = existsSync(built) ? built : null;
