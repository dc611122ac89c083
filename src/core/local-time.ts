/**
 * Times in a spot's own time zone, for every human-readable answer (MCP texts, summaries, e-mails, calendar entries,
 * pictures): a surfer plans in the beach's time, not the server's. The API's own fields stay UTC ISO times.
 */

export interface LocalInstant {
  /** YYYY-MM-DD */
  date: string;
  /** HH:MM */
  time: string;
  /** Mon, Tue, … */
  weekday: string;
  /** Day of the month, 1..31. */
  day: number;
  /** Jan, Feb, … */
  month: string;
  hour: number;
  minute: number;
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const toMs = (instant: number | string) => (typeof instant === "number" ? instant : Date.parse(instant));
const pad2 = (n: number) => String(n).padStart(2, "0");

/** The weekday of a calendar date (YYYY-MM-DD). */
export const weekdayOf = (date: string) => WEEKDAYS[new Date(Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)))).getUTCDay()] ?? "";

interface ZoneFormats {
  zone: string;
  local: Intl.DateTimeFormat;
  offset: Intl.DateTimeFormat;
}

/** Making an Intl.DateTimeFormat costs ~0.8 ms in Bun: one pair per zone (a few hundred zones at most), kept. */
const ZONE_FORMATS = new Map<string, ZoneFormats>();

function formatsOf(zone: string): ZoneFormats {
  let formats = ZONE_FORMATS.get(zone);
  if (formats) return formats;
  const make = (timeZone: string): ZoneFormats => ({
    zone: timeZone,
    local: new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" }),
    offset: new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "shortOffset" }),
  });
  try {
    formats = make(zone);
  } catch {
    formats = ZONE_FORMATS.get("UTC") ?? make("UTC"); // not a zone this runtime knows (an imported spot's typo)
  }
  if (ZONE_FORMATS.size < 1000) ZONE_FORMATS.set(zone, formats);
  return formats;
}

function instant(year: number, month: number, day: number, hour: number, minute: number, weekday: string): LocalInstant {
  return { date: `${year}-${pad2(month)}-${pad2(day)}`, time: `${pad2(hour)}:${pad2(minute)}`, weekday, day, month: MONTHS[month - 1]!, hour, minute };
}

/**
 * Local dates and clock times in one IANA zone (UTC when the zone is not known to this runtime). Intl's
 * formatToParts costs ~20 µs a call in Bun, ~7 ms for a week's forecast; so when the zone's offset is the same at
 * both ends of `span` (no daylight-saving change within it: nearly always over a week), instants within the span
 * are shifted by that offset instead, and only the others are formatted.
 */
export class LocalClock {
  readonly zone: string;
  private readonly format: Intl.DateTimeFormat;
  private readonly offsetName: Intl.DateTimeFormat;
  private readonly fixed: { from: number; to: number; offset: number } | null = null;

  constructor(zone: string, span?: readonly [number | string, number | string]) {
    const formats = formatsOf(zone);
    this.zone = formats.zone;
    this.format = formats.local;
    this.offsetName = formats.offset;
    if (span) {
      const [from, to] = [toMs(span[0]), toMs(span[1])];
      const offset = this.offsetAt(from);
      if (Number.isFinite(offset) && offset === this.offsetAt(to)) this.fixed = { from, to, offset };
    }
  }

  private parts(ms: number): Record<string, string> {
    const parts: Record<string, string> = {};
    for (const p of this.format.formatToParts(new Date(ms))) parts[p.type] = p.value;
    return parts;
  }

  /** Local time minus UTC at `ms`, in ms (whole minutes). */
  private offsetAt(ms: number): number {
    const p = this.parts(ms);
    return Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute)) - (ms - (((ms % 60_000) + 60_000) % 60_000));
  }

  at(at: number | string): LocalInstant {
    const ms = toMs(at);
    if (this.fixed && ms >= this.fixed.from && ms <= this.fixed.to) {
      const d = new Date(ms + this.fixed.offset);
      return instant(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), WEEKDAYS[d.getUTCDay()]!);
    }
    const p = this.parts(ms);
    const date = `${p.year}-${p.month}-${p.day}`;
    return instant(Number(p.year), Number(p.month), Number(p.day), Number(p.hour), Number(p.minute), weekdayOf(date));
  }

  /** "Europe/Lisbon, UTC+0" at `instant`. */
  describe(at: number | string): string {
    const name = this.offsetName
      .formatToParts(new Date(toMs(at)))
      .find((p) => p.type === "timeZoneName")?.value;
    const offset = !name || name === "GMT" ? "UTC+0" : name.replace("GMT", "UTC");
    return `${this.zone}, ${offset}`;
  }
}

/** `17:59` in the zone. */
export const clockTime = (at: number | string, zone: string) => new LocalClock(zone).at(at).time;

/** `Tue 24 17:59` in the zone. */
export function dayTime(at: number | string, zone: string): string {
  const t = new LocalClock(zone).at(at);
  return `${t.weekday} ${t.day} ${t.time}`;
}

/** `Thu 27 Nov 06:00` in the zone. */
export function dateTime(at: number | string, zone: string): string {
  const t = new LocalClock(zone).at(at);
  return `${t.weekday} ${t.day} ${t.month} ${t.time}`;
}

/**
 * The local days an hourly grid touches, in order: the midnight each begins at (the first day's lies before the
 * grid when it starts in the middle of a day) and its name (`Tue 24`).
 */
export function localDays(times: readonly number[], zone: string): { midnight: number; label: string }[] {
  const clock = new LocalClock(zone, times.length > 0 ? [times[0]!, times.at(-1)!] : undefined);
  const days: { midnight: number; label: string }[] = [];
  let previous: string | null = null;
  for (const t of times) {
    const p = clock.at(t);
    if (p.date !== previous) days.push({ midnight: t - (p.hour * 60 + p.minute) * 60_000, label: `${p.weekday} ${p.day}` });
    previous = p.date;
  }
  return days;
}
