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
 * grid when it starts in the middle of a day) and its name in `lang` (`Tue 24`, `ter., 24`).
 */
export function localDays(times: readonly number[], zone: string, lang = "en"): { midnight: number; label: string }[] {
  const clock = new LocalClock(zone, times.length > 0 ? [times[0]!, times.at(-1)!] : undefined);
  const names = new LocalFormat(lang, zone);
  const days: { midnight: number; label: string }[] = [];
  let previous: string | null = null;
  for (const t of times) {
    const p = clock.at(t);
    if (p.date !== previous) days.push({ midnight: t - (p.hour * 60 + p.minute) * 60_000, label: names.day(t) });
    previous = p.date;
  }
  return days;
}

/** The locale Intl formats a language's dates in: English as in Britain (`Tue 24`, 24-hour clock), others as named. */
const intlLocale = (lang: string) => (lang === "en" ? "en-GB" : lang);

interface LocaleFormats {
  time: Intl.DateTimeFormat;
  dayTime: Intl.DateTimeFormat;
  day: Intl.DateTimeFormat;
  zone: Intl.DateTimeFormat;
  numbers: Intl.NumberFormat[];
}

/** Like ZONE_FORMATS: Intl formats cost ~0.8 ms to make, so one set per language and zone is kept. */
const LOCALE_FORMATS = new Map<string, LocaleFormats>();

/**
 * Dates, times and numbers for a reader of one language at one spot, through Intl: what a shop's picture shows
 * (`ter., 14, 17:05`, `1,3`). The zone falls back to UTC when this runtime does not know it, as LocalClock's does.
 */
export class LocalFormat {
  private readonly formats: LocaleFormats;

  constructor(
    readonly lang: string,
    zone: string,
  ) {
    const timeZone = formatsOf(zone).zone;
    const key = `${lang}|${timeZone}`;
    let formats = LOCALE_FORMATS.get(key);
    if (!formats) {
      const locale = intlLocale(lang);
      const clock = { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" } as const;
      formats = {
        time: new Intl.DateTimeFormat(locale, clock),
        dayTime: new Intl.DateTimeFormat(locale, { ...clock, weekday: "short", day: "numeric" }),
        day: new Intl.DateTimeFormat(locale, { timeZone, weekday: "short", day: "numeric" }),
        zone: new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: "short" }),
        numbers: [0, 1].map((digits) => new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits })),
      };
      if (LOCALE_FORMATS.size < 1000) LOCALE_FORMATS.set(key, formats);
    }
    this.formats = formats;
  }

  /** `17:05` */
  time(at: number | string): string {
    return this.formats.time.format(toMs(at));
  }

  /** `Tue 14, 17:05`, `ter., 14, 17:05` */
  dayTime(at: number | string): string {
    return this.formats.dayTime.format(toMs(at));
  }

  /** `Tue 14`, `ter., 14` */
  day(at: number | string): string {
    return this.formats.day.format(toMs(at));
  }

  /** The zone's short name at `at` in this language: `WEST`, `GMT-10`. */
  zoneName(at: number | string): string {
    return this.formats.zone.formatToParts(toMs(at)).find((p) => p.type === "timeZoneName")?.value ?? "UTC";
  }

  /** A number with 0 or 1 decimals in this language: `1,3`. */
  number(value: number, decimals: 0 | 1): string {
    return this.formats.numbers[decimals]!.format(value);
  }
}

/**
 * The zone's abbreviation at `at` for an English text: `PST`, `HST` and `WET` where English has a name for it, else
 * the offset (`GMT+9`). Times in texts read `06:00 HST`.
 */
export function zoneAbbreviation(at: number | string, zone: string): string {
  const named = (locale: string) =>
    new LocalFormat(locale, zone).zoneName(at);
  const british = named("en");
  return /^GMT[+-−]/.test(british) ? named("en-US") : british;
}

/** `06:00 HST`: a clock time with its zone's abbreviation, for English texts. */
export const zonedTime = (at: number | string, zone: string) => `${clockTime(at, zone)} ${zoneAbbreviation(at, zone)}`;

/** `Thu 27 Nov 06:00 HST`: a date and time with its zone's abbreviation, for English texts. */
export const zonedDateTime = (at: number | string, zone: string) => `${dateTime(at, zone)} ${zoneAbbreviation(at, zone)}`;
