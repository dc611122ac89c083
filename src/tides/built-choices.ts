/**
 * Station choices decided at build time. The default catalog is fixed when the binary is built, and the station rule
 * reads nothing of a spot but its position and its import override: so scripts/tide-choices.ts runs the rule for
 * every default spot through the tide database (./engine.ts, as the worker does) and writes each choice with its
 * station's record to dist/tide-choices.json.gz, which the binary embeds (./built-choices-file.ts). A spot the build
 * decided takes its choice from there, and a new install's first start never loads the tide database (~110 MB);
 * every other spot — an import, a changed override, a binary whose rule or database differs from the file's — asks
 * the database in its worker, as before.
 *
 * The file is read when a choice is first looked up and dropped after a few seconds without a lookup, or when the
 * window pass that needed it is over: it is only needed while stations are being chosen (the first start, or after
 * a new rule).
 */
import tideDatabase from "@neaps/tide-database/package.json";
import { readGzipJson } from "../core/gzip-json";
import { log } from "../core/log";
import type { StationRecord } from "./record";
import { STATION_RULE, type RuleInput, type StationChoice } from "./stations";

/** Identifies the station rule and the database it ran on (in `meta` and in the build's file): when either changes, every station is chosen again. */
export const CHOICE_RULE = `${STATION_RULE}; ${tideDatabase.name} ${tideDatabase.version}`;

/** A choice and its station's record, as the worker answers it. */
export interface ChoiceWithRecord {
  choice: StationChoice;
  record: StationRecord | null;
}

/** The file's content: the rule it was made with, what it was made from, and each position's choice. */
export interface BuiltChoicesData {
  rule: string;
  /** A digest of the catalog and overlay it was made from (the build makes it again when they change). */
  catalog: string;
  /** Chosen stations' records by station id (one per station, shared by its spots). */
  records: Record<string, StationRecord>;
  /** Choices by `choiceKey`. */
  choices: Record<string, StationChoice>;
}

/** Spots at the same position with the same override get the same choice. */
export const choiceKey = (spot: RuleInput, override: boolean | null): string => `${spot.lat},${spot.lng},${override}`;

/** The rule for each distinct (position, override) of `spots`, with the chosen stations' records. */
export function decideAll(
  catalog: string,
  spots: Iterable<RuleInput & { override: boolean | null }>,
  choose: (spot: RuleInput, override: boolean | null) => ChoiceWithRecord,
): BuiltChoicesData {
  const data: BuiltChoicesData = { rule: CHOICE_RULE, catalog, records: {}, choices: {} };
  for (const spot of spots) {
    const key = choiceKey(spot, spot.override);
    if (key in data.choices) continue;
    const { choice, record } = choose({ lat: spot.lat, lng: spot.lng }, spot.override);
    data.choices[key] = choice;
    if (record) data.records[record.id] = record;
  }
  return data;
}

/** How long the file's content is kept after its last lookup. */
const KEEP_MS = 10_000;

export class BuiltChoices {
  private data: BuiltChoicesData | null = null;
  private drop: ReturnType<typeof setTimeout> | null = null;

  /** `file`: the build's choices (./built-choices-file.ts), or null when there are none (a source tree never built). */
  constructor(
    private readonly file: string | null,
    private readonly keepMs = KEEP_MS,
  ) {}

  /** The build's choice for a spot with this override, with its station's record; null when the build did not decide it. */
  find(spot: RuleInput, override: boolean | null): ChoiceWithRecord | null {
    const data = this.read();
    const choice = data?.choices[choiceKey(spot, override)];
    if (!choice) return null;
    return { choice, record: choice.station ? data.records[choice.station.id]! : null };
  }

  /** Drops the file's content now (the window pass is over); the next lookup reads it again. */
  release(): void {
    if (this.drop) clearTimeout(this.drop);
    this.drop = null;
    this.data = null;
  }

  private read(): BuiltChoicesData | null {
    if (this.file === null) return null;
    if (this.drop) clearTimeout(this.drop);
    this.drop = setTimeout(() => (this.data = null), this.keepMs);
    this.drop.unref();
    if (this.data) return this.data;
    const data = readGzipJson<BuiltChoicesData>(this.file);
    if (data.rule !== CHOICE_RULE) {
      log.warn("the build's tide station choices were made with another rule: stations are chosen with the tide database", { built: data.rule, rule: CHOICE_RULE });
      data.choices = {};
    }
    return (this.data = data);
  }
}
