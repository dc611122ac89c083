/** `surfcast spots import` — STUB, filled in by the spot catalog issue (#3). */
import type { App } from "../app";
import { UserError } from "../core/errors";

export const SPOTS_HELP = `Usage: surfcast spots import FILE [--replace]

Imports spots from JSON, GeoJSON or CSV.`;

export async function runSpots(_app: App, _argv: string[]): Promise<number> {
  throw new UserError("spots import is not implemented yet");
}
