/** `surfcast refresh` — STUB, filled in by the forecast issue (#6). */
import type { App } from "../app";
import { UserError } from "../core/errors";

export const REFRESH_HELP = `Usage: surfcast refresh [--spots ID,...]

Fetches fresh forecasts from Open-Meteo now.`;

export async function runRefresh(_app: App, _argv: string[]): Promise<number> {
  throw new UserError("refresh is not implemented yet");
}
