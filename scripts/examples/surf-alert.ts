#!/usr/bin/env bun
/**
 * Surf alert: posts to a webhook when a spot's rating for your level reaches a threshold in the next hours of
 * daylight. Only daylight hours count, by the rule the forecast's best windows use (`daily[].best`,
 * docs/forecast.md): an hour whose middle lies between that day's sunrise and sunset. A rating of 5 at 20:00
 * after sunset is nobody's session; a day without sunrise or sunset (polar day or night) has no such hour.
 * The message goes out as `{"content": …, "text": …}`, which Discord and Slack webhooks both accept (and any
 * service that takes a JSON POST). Run it from cron, e.g. every morning at 6:
 *
 *   0 6 * * *  SURFCAST_URL=https://surf.example.com SURFCAST_KEY=sk_live_… \
 *              bun /opt/surfcast/surf-alert.ts --spot supertubos --level intermediate --min 4 --webhook https://discord.com/api/webhooks/…
 *
 * Runs with Bun, or Node ≥ 22.18 (`node surf-alert.ts …`); no dependencies. Options: --spot (id or slug,
 * required), --webhook (required), --level beginner|intermediate|advanced (default intermediate), --min 1..5
 * (default 4), --hours 1..72 (default 24). Exit status: 0 when sent or when no hour qualifies, 1 on an API or
 * webhook failure, 2 on bad options. One forecast call per run (counted as `forecast` in your usage).
 */
import { parseArgs } from "node:util";

interface Hour {
  time: string;
  waveHeight: number;
  wavePeriod: number;
  windSpeed: number;
  windDirectionType: string | null;
  rating: Record<string, number>;
}

/** A forecast day: its sunrise and sunset as UTC instants, null in a polar day or night. */
interface Day {
  sunrise: string | null;
  sunset: string | null;
}

const LEVELS = ["beginner", "intermediate", "advanced"];

function fail(status: number, message: string): never {
  console.error(`surf-alert: ${message}`);
  process.exit(status);
}

function options() {
  const { values } = parseArgs({
    options: {
      spot: { type: "string" },
      webhook: { type: "string" },
      level: { type: "string", default: "intermediate" },
      min: { type: "string", default: "4" },
      hours: { type: "string", default: "24" },
    },
  });
  const base = process.env.SURFCAST_URL;
  const key = process.env.SURFCAST_KEY;
  const min = Number(values.min);
  const hours = Number(values.hours);
  if (!base || !key) fail(2, "set SURFCAST_URL (e.g. https://surf.example.com) and SURFCAST_KEY");
  if (!values.spot || !values.webhook) fail(2, "--spot and --webhook are required");
  if (!LEVELS.includes(values.level)) fail(2, `--level must be one of ${LEVELS.join(", ")}`);
  if (!Number.isInteger(min) || min < 1 || min > 5) fail(2, "--min must be an integer from 1 to 5");
  if (!Number.isInteger(hours) || hours < 1 || hours > 72) fail(2, "--hours must be an integer from 1 to 72");
  return { base: base.replace(/\/+$/, ""), key, spot: values.spot, webhook: values.webhook, level: values.level, min, hours };
}

const utc = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
const HOUR_MS = 3_600_000;

/** Whether the hour starting at `time` is mostly light: its middle between a day's sunrise and sunset (inclusive). */
function inDaylight(time: string, days: readonly Day[]): boolean {
  const middle = Date.parse(time) + HOUR_MS / 2;
  return days.some((d) => d.sunrise !== null && d.sunset !== null && middle >= Date.parse(d.sunrise) && middle <= Date.parse(d.sunset));
}

async function main(): Promise<void> {
  const o = options();
  const days = Math.ceil(o.hours / 24) + 1;
  const res = await fetch(`${o.base}/v1/spots/${encodeURIComponent(o.spot)}/forecast?days=${Math.min(days, 7)}`, { headers: { "X-API-Key": o.key } });
  const body = (await res.json().catch(() => null)) as { spot?: { name: string }; hours?: Hour[]; daily?: Day[]; error?: { code: string; message: string } } | null;
  if (!res.ok || !body?.hours || !body.daily || !body.spot) fail(1, `forecast request failed: ${res.status} ${body?.error ? `${body.error.code}: ${body.error.message}` : ""}`);
  const end = Date.now() + o.hours * HOUR_MS;
  const daily = body.daily;
  const good = body.hours.filter((h) => Date.parse(h.time) < end && (h.rating[o.level] ?? 0) >= o.min && inDaylight(h.time, daily));
  if (good.length === 0) {
    console.log(`surf-alert: no daylight hour at ${body.spot.name} reaches ${o.level} ${o.min}/5 in the next ${o.hours} h; nothing sent`);
    return;
  }
  const first = good[0]!;
  const best = good.reduce((a, b) => ((b.rating[o.level] ?? 0) > (a.rating[o.level] ?? 0) ? b : a));
  const wind = first.windDirectionType ? `${first.windDirectionType} wind` : "wind";
  const message =
    `${body.spot.name}: ${o.level} rating ${first.rating[o.level]}/5 from ${utc(first.time)} ` +
    `(${good.length} daylight h at ${o.min}+ in the next ${o.hours} h, best ${best.rating[o.level]}/5 at ${utc(best.time)}). ` +
    `Waves ${first.waveHeight} m, ${first.wavePeriod} s, ${wind} ${first.windSpeed} km/h.`;
  const sent = await fetch(o.webhook, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ content: message, text: message }) });
  if (!sent.ok) fail(1, `webhook answered ${sent.status}`);
  console.log(`surf-alert: sent: ${message}`);
}

main().catch((err: unknown) => fail(1, err instanceof Error ? err.message : String(err)));
