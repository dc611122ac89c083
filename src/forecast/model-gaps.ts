/**
 * Where wave models read no sea: what the refreshes learned, kept for `surfcast spots check` (a separate process).
 * A spot's entry is replaced by its latest refresh; a spot refreshed with every model counted loses it; a spot whose
 * refresh failed keeps what was known. Pure: the stored JSON and a refresh's summary in, the new JSON out.
 */
import type { RefreshSummary } from "./refresh";
import type { LeftOutReason } from "./types";

/** The `meta` key the gaps are kept under. */
export const MODEL_GAPS_META = "forecast.model-gaps";

export interface ModelGap {
  leftOut: Record<string, LeftOutReason>;
  /** No counted model saw sea: the spot gets no forecast. */
  sealess: boolean;
  /** When the refresh that found it ran, ISO 8601. */
  at: string;
}

export type ModelGaps = Record<string, ModelGap>;

export function parseModelGaps(text: string | null): ModelGaps {
  if (!text) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed) ? (parsed as ModelGaps) : {};
  } catch {
    return {}; // a damaged note is only a report's input: the next refreshes write it again
  }
}

export function mergeModelGaps(stored: ModelGaps, refreshed: readonly { id: string }[], summary: Pick<RefreshSummary, "modelGaps" | "failedSpotIds">, at: string): ModelGaps {
  const out = { ...stored };
  const failed = new Set(summary.failedSpotIds);
  for (const { id } of refreshed) {
    const gap = summary.modelGaps.get(id);
    if (gap) out[id] = { ...gap, at };
    else if (!failed.has(id)) delete out[id];
  }
  return out;
}
