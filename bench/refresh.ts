/**
 * Full refresh of every spot through the compiled binary (`surfcast refresh`) against the local fake
 * Open-Meteo (test/support/fake-open-meteo.ts): wall time, upstream requests and weight, peak RSS.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../test/support/env";
import { notMeasured, type Section } from "./report";

const TITLE = "Forecast refresh (all spots, local fake Open-Meteo)";

export async function refreshSection(_dataDir: string): Promise<Section> {
  if (!existsSync(join(ROOT, "test/support/fake-open-meteo.ts"))) return notMeasured(TITLE, "the fake Open-Meteo (test/support/fake-open-meteo.ts) has not landed yet");
  return notMeasured(TITLE, "not wired yet");
}
