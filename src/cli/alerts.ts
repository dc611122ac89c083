/** `surfcast alerts …` — condition alerts (docs/alerts.md): create, list, delete, test, and an alert's delivery log. */
import { PLAN_DEFAULTS, PLAN_NAMES } from "../access/plans";
import { UserError } from "../core/errors";
import { escapeControls } from "../core/log";
import { describeCondition, WIND_TYPES, type AlertWindow } from "../alerts/condition";
import { alertState, type AlertService, type AlertWithWindows, type DeliveryLogRow } from "../alerts/service";
import { noExtraPositionals, parse, requirePositional } from "./args";
import { CONFIDENCE_LEVELS } from "../forecast/best";
import { CONFIRMATION_LIMITS, CONFIRMATION_LINK_MS, TEST_LIMITS } from "../alerts/limits";
import { DAY_MS } from "../core/clock";
import { UNITS, type Units } from "../core/units";

const PLAN_LINE = PLAN_NAMES.map((p) => `${p} ${PLAN_DEFAULTS[p].maxAlerts}`).join(", ");

export const ALERTS_HELP = `Usage:
  surfcast alerts create KEY_ID --spot SPOT_ID (--webhook URL | --email ADDRESS) [--name N]
                         [--min-wave H] [--max-wave H] [--units ${UNITS.join("|")}]
                         [--min-rating N --level beginner|intermediate|advanced]
                         [--wind ${WIND_TYPES.join(",")}] [--daylight] [--min-confidence ${CONFIDENCE_LEVELS.join("|")}] [--json]
  surfcast alerts list EMAIL [--json]
  surfcast alerts delete ALERT_ID
  surfcast alerts test ALERT_ID
  surfcast alerts deliveries ALERT_ID [--json]
  surfcast alerts confirm-again ALERT_ID

An alert watches one spot's forecast for a key's owner: after every refresh, each run of consecutive hours that
meets its condition (a window) is sent once, to a webhook (signed per Standard Webhooks) or by e-mail.
Condition: wave height (--min-wave, default 0; --max-wave) in metres, or in feet with --units imperial or a
unit after the number (1.5m, 4ft; stored in metres, shown in the unit given), a minimum rating 1-5 for a level (both
--min-rating and --level), the wind types allowed (comma-separated), daylight hours only, a minimum forecast
confidence. Without filters every hour matches. Alerts per account by plan: ${PLAN_LINE}.
A webhook to a loopback, private or link-local address is refused unless SURFCAST_WEBHOOK_ALLOWED_NETWORKS
lists its network. create prints the alert's id and its calendar feed's secret URL (shown once); for a
webhook, the signing secret (whsec_…, shown once) on the last line. An e-mail address receives nothing but one
confirmation e-mail until the link in it is opened (the link works ${CONFIRMATION_LINK_MS / DAY_MS} days; confirm-again sends a new one, at most
${CONFIRMATION_LIMITS.alert.max} a day per alert). test queues a test event that the server sends within seconds: at most
${TEST_LIMITS.alert.max} an hour per alert and ${TEST_LIMITS.account.max} an hour per account. deliveries prints the
alert's delivery log (the last 50 attempts, newest first): when (UTC), the event and its window in the spot's time, the
attempt, its outcome, HTTP status and error.`;

const SUFFIX_UNITS: Record<string, Units> = { m: "metric", ft: "imperial" };

/** A flag's wave height: digits with an optional fraction, then optionally its unit (`1.5`, `1.5m`, `4ft`). */
function waveHeight(value: string | undefined, flag: string): { value: number; units?: Units } | undefined {
  if (value === undefined) return undefined;
  const match = /^(\d+(?:\.\d+)?)(m|ft)?$/.exec(value);
  if (!match) throw new UserError(`${flag} must be a wave height like 1.5, 1.5m or 4ft, got "${value}"`);
  return { value: Number(match[1]), units: match[2] === undefined ? undefined : SUFFIX_UNITS[match[2]] };
}

/** The unit of the condition's heights: as the suffixes and --units say it, when they agree (the rules check the name). */
function conditionUnits(flag: string | undefined, heights: ({ units?: Units } | undefined)[]): string | undefined {
  const said = new Set([flag, ...heights.map((h) => h?.units)].filter((u) => u !== undefined));
  if (said.size > 1) throw new UserError(`--min-wave, --max-wave and --units name different units (${[...said].join(", ")}): give the heights in one unit`);
  return [...said][0];
}

function wholeNumber(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UserError(`${flag} must be an integer from 1 to 5, got "${value}"`);
  return Number(value);
}

const windowLine = (w: AlertWindow) => `${w.start} → ${w.end}  best ${w.best.time}: ${w.best.waveHeight} m, ${w.best.wavePeriod} s, wind ${w.best.windSpeed} km/h ${w.best.windDirectionType ?? "?"}, rating ${w.best.rating}`;

function deliveryLine(d: DeliveryLogRow): string {
  const answer = [d.statusCode, d.error].filter((part) => part !== null).join(" ");
  return `${d.at.slice(0, 16).replace("T", " ")} UTC  ${d.event.padEnd(12)}  ${d.window ? `${d.window.local} (${d.window.timeZone})` : "-"}  attempt ${d.attempt}  ${d.outcome}${answer === "" ? "" : `  ${answer}`}  ${d.id}`;
}

function alertLines(a: AlertWithWindows): string {
  // Names and targets stored before the one-line rule may hold control characters: printed as escapes.
  const head = `${a.id}  "${escapeControls(a.name)}"  ${a.spot.id}  key ${a.keyId}  ${a.delivery} ${escapeControls(a.target)}  ${describeCondition(a.condition)}  ${alertState(a)}`;
  if (a.nextWindows === null) return `${head}\n  (no forecast for ${a.spot.id} yet)`;
  if (a.nextWindows.length === 0) return `${head}\n  no window in the forecast`;
  return [head, ...a.nextWindows.map((w) => `  ${windowLine(w)}`)].join("\n");
}

export async function runAlerts(alerts: AlertService, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parse(
    rest,
    {
      spot: { type: "string" },
      webhook: { type: "string" },
      email: { type: "string" },
      name: { type: "string" },
      "min-wave": { type: "string" },
      "max-wave": { type: "string" },
      units: { type: "string" },
      "min-rating": { type: "string" },
      level: { type: "string" },
      wind: { type: "string" },
      daylight: { type: "boolean" },
      "min-confidence": { type: "string" },
      json: { type: "boolean" },
    },
    ALERTS_HELP,
  );
  if (values.help || sub === undefined || sub === "help") {
    console.log(ALERTS_HELP);
    return;
  }
  switch (sub) {
    case "create": {
      noExtraPositionals(positionals, 1, ALERTS_HELP);
      const keyId = requirePositional(positionals, 0, "KEY_ID", ALERTS_HELP);
      if (values.spot === undefined) throw new UserError("--spot is required: the id of the spot to watch (find it with GET /v1/spots?q=…)");
      const [minWave, maxWave] = [waveHeight(values["min-wave"], "--min-wave"), waveHeight(values["max-wave"], "--max-wave")];
      const created = await alerts.create(keyId, {
        spotId: values.spot,
        webhook: values.webhook,
        email: values.email,
        name: values.name,
        condition: {
          minWave: minWave?.value,
          maxWave: maxWave?.value,
          units: conditionUnits(values.units, [minWave, maxWave]),
          minRating: wholeNumber(values["min-rating"], "--min-rating"),
          level: values.level,
          wind: values.wind?.split(","),
          daylight: values.daylight,
          minConfidence: values["min-confidence"],
        },
      });
      if (values.json) {
        console.log(JSON.stringify(created));
        return;
      }
      console.log(`created alert "${created.name}" on ${created.spot.id} for key ${created.keyId}: ${describeCondition(created.condition)}, by ${created.delivery} to ${created.target}`);
      console.log(`calendar feed (secret, shown once): ${created.calendarUrl}`);
      console.log(created.id);
      if (created.secret !== null) {
        console.log("webhook signing secret (shown once; store it now):");
        console.log(created.secret);
      }
      return;
    }
    case "list": {
      noExtraPositionals(positionals, 1, ALERTS_HELP);
      const listed = await alerts.list(requirePositional(positionals, 0, "EMAIL", ALERTS_HELP));
      if (values.json) console.log(JSON.stringify(listed, null, 2));
      else if (listed.length === 0) console.log("no alerts");
      else for (const a of listed) console.log(alertLines(a));
      return;
    }
    case "delete": {
      noExtraPositionals(positionals, 1, ALERTS_HELP);
      const deleted = await alerts.delete(requirePositional(positionals, 0, "ALERT_ID", ALERTS_HELP));
      console.log(`deleted alert ${deleted.id} "${escapeControls(deleted.name)}" with its delivery log`);
      return;
    }
    case "test": {
      noExtraPositionals(positionals, 1, ALERTS_HELP);
      const queued = await alerts.test(requirePositional(positionals, 0, "ALERT_ID", ALERTS_HELP));
      console.log(`queued test event ${queued.eventId} for alert ${queued.alertId}; the running server sends it within seconds (its log: the console's Alerts page)`);
      return;
    }
    case "deliveries": {
      noExtraPositionals(positionals, 1, ALERTS_HELP);
      const alertId = requirePositional(positionals, 0, "ALERT_ID", ALERTS_HELP);
      const log = await alerts.deliveryLog(alertId);
      if (values.json) console.log(JSON.stringify(log, null, 2));
      else if (log.length === 0) console.log(`nothing sent yet for alert ${alertId}`);
      else for (const d of log) console.log(deliveryLine(d));
      return;
    }
    case "confirm-again": {
      noExtraPositionals(positionals, 1, ALERTS_HELP);
      const queued = await alerts.resendConfirmation(requirePositional(positionals, 0, "ALERT_ID", ALERTS_HELP));
      console.log(`queued a new confirmation e-mail for alert ${queued.alertId}; the running server sends it within seconds`);
      return;
    }
    default:
      throw new UserError(`unknown command "alerts ${sub}"\n\n${ALERTS_HELP}`);
  }
}
