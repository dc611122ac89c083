/**
 * The Open-Meteo Marine wave models the refresh can ask for, and what each one carries. Pure data and a parser for
 * SURFCAST_WAVE_MODELS. What each model is (region, grid, horizon, source) is told in docs/forecast.md ("Wave models").
 */

export interface WaveModel {
  /** Who runs it, for people: docs, `--help`, the console. */
  label: string;
  region: "global" | "Europe";
  /** Grid spacing in degrees. */
  gridDegrees: number;
  /** Hours of forecast a run covers (the refresh asks for 7 days; past this the model's columns are null). */
  horizonHours: number;
  /** Carries the swell partitions (primary/secondary/tertiary swell, wind sea), not only the total sea. */
  swells: boolean;
  /** Carries sea surface temperature and sea level (Météo-France's SMOC ocean model behind them). */
  ocean: boolean;
}

export const WAVE_MODELS: Record<string, WaveModel> = {
  best_match: { label: "Open-Meteo's blend (Météo-France MFWAM where it serves)", region: "global", gridDegrees: 1 / 12, horizonHours: 240, swells: true, ocean: true },
  meteofrance_wave: { label: "Météo-France MFWAM", region: "global", gridDegrees: 1 / 12, horizonHours: 240, swells: true, ocean: true },
  ecmwf_wam025: { label: "ECMWF WAM 0.25°", region: "global", gridDegrees: 0.25, horizonHours: 360, swells: false, ocean: false },
  ecmwf_wam: { label: "ECMWF WAM (open data)", region: "global", gridDegrees: 0.25, horizonHours: 240, swells: false, ocean: false },
  ncep_gfswave025: { label: "NOAA GFS Wave 0.25°", region: "global", gridDegrees: 0.25, horizonHours: 384, swells: true, ocean: false },
  ncep_gfswave016: { label: "NOAA GFS Wave 0.16°", region: "global", gridDegrees: 1 / 6, horizonHours: 384, swells: true, ocean: false },
  ncep_gefswave025: { label: "NOAA GEFS Wave ensemble mean 0.25°", region: "global", gridDegrees: 0.25, horizonHours: 384, swells: true, ocean: false },
  gwam: { label: "DWD GWAM", region: "global", gridDegrees: 0.25, horizonHours: 96, swells: true, ocean: false },
  ewam: { label: "DWD EWAM", region: "Europe", gridDegrees: 0.05, horizonHours: 78, swells: true, ocean: false },
};

/** Three global models from three forecast centres; Météo-France first: its cells are the finest and it alone carries the sea temperature and sea level. */
export const DEFAULT_WAVE_MODELS: readonly string[] = ["meteofrance_wave", "ecmwf_wam025", "ncep_gfswave025"];

/** Aliases the Open-Meteo server accepts for the DWD models. */
const ALIASES: Record<string, string> = { dwd_gwam: "gwam", dwd_ewam: "ewam" };

/**
 * SURFCAST_WAVE_MODELS: a comma-separated list of known marine models, each once. Returns the message for the one
 * line the operator sees, or the list.
 */
export function parseWaveModels(text: string | undefined): { models: string[] } | { error: string } {
  if (text === undefined || text.trim() === "") return { models: [...DEFAULT_WAVE_MODELS] };
  const models: string[] = [];
  for (const raw of text.split(",")) {
    const name = raw.trim().toLowerCase();
    if (name === "") continue;
    const model = ALIASES[name] ?? name;
    if (!(model in WAVE_MODELS)) return { error: `unknown wave model "${raw.trim()}" (known: ${Object.keys(WAVE_MODELS).join(", ")})` };
    if (models.includes(model)) return { error: `wave model "${model}" is listed twice` };
    models.push(model);
  }
  if (models.length === 0) return { error: "names no model" };
  return { models };
}

/**
 * The models to ask for: the configured ones, and `best_match` after them when none of them carries the sea
 * temperature and sea level (the spec's waterTemperature is required; the model tide needs the sea level). That
 * extra column set only feeds those two; it never counts in the wave figures.
 */
export function requestedModels(waveModels: readonly string[]): string[] {
  return waveModels.some((m) => WAVE_MODELS[m]?.ocean) ? [...waveModels] : [...waveModels, "best_match"];
}
