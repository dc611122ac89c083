/** Times in a spot's own time zone, for the pictures (the API's times stay UTC). Formatters are built once per zone. */

interface LocalParts {
  /** `YYYY-MM-DD` in the zone. */
  date: string;
  weekday: string;
  day: number;
  hour: number;
  minute: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-GB", { timeZone, year: "numeric", month: "2-digit", day: "2-digit", weekday: "short", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    formatters.set(timeZone, f);
  }
  return f;
}

export function localParts(ms: number, timeZone: string): LocalParts {
  const p: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(ms)) p[part.type] = part.value;
  return { date: `${p.year}-${p.month}-${p.day}`, weekday: p.weekday!, day: Number(p.day), hour: Number(p.hour), minute: Number(p.minute) };
}

/** `17:59` in the zone. */
export function clockTime(ms: number, timeZone: string): string {
  const { hour, minute } = localParts(ms, timeZone);
  return `${String(hour).padStart(2, "0")}:${String(minute).padStart(2, "0")}`;
}

/** `Tue 24 17:59` in the zone. */
export function dayTime(ms: number, timeZone: string): string {
  const p = localParts(ms, timeZone);
  return `${p.weekday} ${p.day} ${String(p.hour).padStart(2, "0")}:${String(p.minute).padStart(2, "0")}`;
}

/**
 * The local days an hourly grid touches, in order: the midnight each begins at (the first day's lies before the
 * grid when it starts in the middle of a day) and its name (`Tue 24`).
 */
export function localDays(times: readonly number[], timeZone: string): { midnight: number; label: string }[] {
  const days: { midnight: number; label: string }[] = [];
  let previous: string | null = null;
  for (const t of times) {
    const p = localParts(t, timeZone);
    if (p.date !== previous) days.push({ midnight: t - (p.hour * 60 + p.minute) * 60_000, label: `${p.weekday} ${p.day}` });
    previous = p.date;
  }
  return days;
}
