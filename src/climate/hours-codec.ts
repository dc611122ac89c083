/**
 * A cell's decade of hours as the climate store keeps them: each field a column of 16-bit integers in the upstream's
 * own decimals (centimetres, hundredths of a second, degrees, tenths of km/h), so nothing the upstream wrote is lost,
 * then brotli: a decade's 87,672 hours are 877 KB before it. Read back for a new spot in the cell (its good days and
 * offshore wind need the hours and its facing), never fetched again.
 */
import { zlib } from "../core/zlib";
import { HOUR_FIELDS, type CellHours } from "./climate";

/** Each field's factor to its integer unit. */
const SCALE: Record<(typeof HOUR_FIELDS)[number], number> = { waveHeight: 100, wavePeriod: 100, waveDirection: 1, windSpeed: 10, windDirection: 1 };
const MISSING = -32768;

export function packHours(hours: CellHours): Uint8Array {
  const count = hours.waveHeight.length;
  const columns = new Int16Array(HOUR_FIELDS.length * count);
  HOUR_FIELDS.forEach((field, k) => {
    const scale = SCALE[field];
    hours[field].forEach((v, i) => {
      columns[k * count + i] = v === null ? MISSING : Math.max(MISSING + 1, Math.min(32767, Math.round(v * scale)));
    });
  });
  return zlib().brotliCompressSync(new Uint8Array(columns.buffer), { params: { [zlib().constants.BROTLI_PARAM_QUALITY]: 5 } });
}

export function unpackHours(start: number, packed: Uint8Array): CellHours {
  // A copy: the decompressed bytes may start at an odd offset of a shared buffer.
  const columns = new Int16Array(new Uint8Array(zlib().brotliDecompressSync(packed)).buffer);
  const count = columns.length / HOUR_FIELDS.length;
  const out: CellHours = { start, waveHeight: [], wavePeriod: [], waveDirection: [], windSpeed: [], windDirection: [] };
  HOUR_FIELDS.forEach((field, k) => {
    const scale = SCALE[field];
    const values = new Array<number | null>(count);
    for (let i = 0; i < count; i++) {
      const v = columns[k * count + i]!;
      values[i] = v === MISSING ? null : v / scale;
    }
    out[field] = values;
  });
  return out;
}
