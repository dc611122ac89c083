/**
 * The Alerts page (docs/alerts.md): the owner's condition alerts with their next windows, the form that makes one
 * for an active key, the webhook secret and calendar feed shown once after creation, each alert's delivery log with
 * "send again", and the confirmation page of deleting one. The rules are the alerts service's.
 */
import { html } from "ghtml";
import type { KeyView } from "../../access/accounts";
import { UserError } from "../../core/errors";
import { LEVELS } from "../../forecast/best";
import { ALERT_NAME_MAX, MAX_WEBHOOK_URL_LENGTH, type AlertRequest, type AlertWithWindows, type CreatedAlert, type DeliveryLogRow } from "../../alerts/service";
import { describeCondition, MAX_WAVE_M, WIND_TYPES, type AlertWindow } from "../../alerts/condition";
import type { AlertAllowance, SpotPicker } from "../service";
import { confirmCard, copyBlock, csrfField, formatDay, page, type OwnerPage } from "./layout";
import { spotOption } from "./embeds";
import { CONFIDENCE_LEVELS } from "../../forecast/best";
import { DELIVERY_LOG_MS } from "../../alerts/limits";
import { DAY_MS } from "../../core/clock";
import { feet } from "../../core/units";
import { zonedDateTime } from "../../core/local-time";
import { windowSpan } from "../../alerts/delivery/wording";

/** What the owner typed and ticked, kept when the form comes back (a refusal, or a search for the spot). */
export interface AlertForm {
  keyId: string;
  /** The spot picked among those found by name. */
  spot: string;
  /** The spot id typed. */
  spotId: string;
  /** The last name searched for. */
  q: string;
  delivery: string;
  target: string;
  name: string;
  minWave: string;
  maxWave: string;
  /** The unit of the wave heights typed: metric or imperial. */
  units: string;
  minRating: string;
  level: string;
  wind: string[];
  daylight: boolean;
  minConfidence: string;
}

/** The alert form as sent (POST /console/alerts): a search for the spot (the Search button) or an alert to make. */
export function readAlertForm(form: URLSearchParams): AlertForm & { find: boolean } {
  const field = (name: string) => (form.get(name) ?? "").trim();
  return {
    find: form.has("find"),
    keyId: field("key"),
    spot: field("spot"),
    spotId: field("spotId"),
    q: field("q"),
    delivery: field("delivery"),
    target: field("target"),
    name: field("name"),
    minWave: field("minWave"),
    maxWave: field("maxWave"),
    units: field("units"),
    minRating: field("minRating"),
    level: field("level"),
    wind: form.getAll("wind"),
    daylight: form.has("daylight"),
    minConfidence: field("minConfidence"),
  };
}

/** A height as typed ("1.5", "1,5"), in the unit chosen beside it; undefined when left empty. */
function waveHeight(raw: string, label: string): number | undefined {
  if (raw === "") return undefined;
  const value = Number(raw.replace(",", "."));
  if (!/^\d+([.,]\d+)?$/.test(raw) || !Number.isFinite(value)) throw new UserError(`${label} must be a number, like 1.5 (metres) or 4 (feet).`);
  return value;
}

/** The request the form describes; a number that is not one is refused here, every other rule by the service. */
export function alertRequestOf(f: AlertForm): AlertRequest {
  const spotId = chosenSpot(f);
  if (spotId === "") throw new UserError("Choose the spot to watch: find it by name and pick it, or type its id.");
  if (f.target === "") throw new UserError(f.delivery === "email" ? "Give the e-mail address to send to." : "Give the webhook URL to send to.");
  // Left empty, the minimum is the service's default (0 m): every height.
  const minWave = waveHeight(f.minWave, "The minimum wave height");
  const minRating = f.minRating === "" ? undefined : Number(f.minRating);
  return {
    spotId,
    ...(f.delivery === "email" ? { email: f.target } : { webhook: f.target }),
    name: f.name === "" ? undefined : f.name,
    condition: {
      minWave,
      maxWave: waveHeight(f.maxWave, "The maximum wave height"),
      units: f.units === "" ? undefined : f.units,
      minRating,
      level: minRating === undefined ? undefined : f.level,
      wind: f.wind.length === 0 ? undefined : f.wind,
      daylight: f.daylight,
      minConfidence: f.minConfidence === "" ? undefined : f.minConfidence,
    },
  };
}

/** The spot the form names: the one picked among those found by name, else the id typed. */
function chosenSpot(f: AlertForm): string {
  return f.spot || f.spotId;
}

const EMPTY_FORM: AlertForm = { keyId: "", spot: "", spotId: "", q: "", delivery: "webhook", target: "", name: "", minWave: "", maxWave: "", units: "metric", minRating: "", level: "intermediate", wind: [], daylight: false, minConfidence: "" };

/** A window in the spot's local time, its zone named (`Thu 27 Nov 06:00–10:00 WET`), with its best hour. */
function windowLine(w: AlertWindow, timeZone: string): string {
  const best = w.best;
  return html`<li>${windowSpan(w.start, w.end, timeZone)} <span class="muted">&middot; best ${best.waveHeight.toFixed(1)} m at ${Math.round(best.wavePeriod)} s, ${best.windDirectionType ?? "unknown"} wind, rating ${best.rating}</span></li>`;
}

/** The next windows, three at most. */
function nextWindows(windows: AlertWindow[] | null, timeZone: string): string {
  if (windows === null) return html`<p class="muted">Next windows: none known yet (the spot's forecast has not been fetched).</p>`;
  if (windows.length === 0) return html`<p class="muted">Next windows: none in the current forecast.</p>`;
  const more = windows.length > 3 ? html`<li class="muted">and ${windows.length - 3} more</li>` : "";
  return html`<p class="found-title">Next windows:</p><ul class="windows">!${windows.slice(0, 3).map((w) => windowLine(w, timeZone))}!${more}</ul>`;
}

function status(a: AlertWithWindows): string {
  if (!a.enabled) return html`<span class="status-revoked">off</span> <span class="muted">(${a.disabledReason ?? ""}, since ${formatDay(a.disabledAt)})</span>`;
  return a.waitingForConfirmation
    ? html`<span class="status-revoked">waiting for confirmation</span> <span class="muted">(nothing is sent to the address until the link in its confirmation e-mail is opened)</span>`
    : html`<span class="status-active">on</span>`;
}

/** The button an alert that sends offers: a test event, or, while its address is unconfirmed, the confirmation again. */
function sendButton(a: AlertWithWindows, csrf: string, className = ""): string {
  if (!a.enabled) return "";
  const [action, label] = a.waitingForConfirmation ? ["confirm-again", "Send the confirmation again"] : ["test", "Send a test event"];
  return html`<form method="post" action="/console/alerts/${a.id}/${action}"!${className ? html` class="${className}"` : ""}>!${csrfField(csrf)}<button type="submit" class="secondary">${label}<span class="visually-hidden"> for ${a.name}</span></button></form>`;
}

function alertCard(a: AlertWithWindows, keys: readonly KeyView[], csrf: string): string {
  const key = keys.find((k) => k.id === a.keyId);
  return html`<li class="card">
<h3>${a.name} <span class="muted">&middot;</span> !${status(a)}</h3>
<p>${a.spot.name} <span class="muted">(<code>${a.spot.id}</code>) &middot; key ${key?.name ?? a.keyId}${key?.revokedAt ? " (revoked)" : ""} &middot; created ${formatDay(a.createdAt)}</span></p>
<p>When: ${describeCondition(a.condition)}</p>
<p class="target">To: ${a.delivery === "webhook" ? "webhook" : "e-mail"} <code>${a.target}</code></p>
!${nextWindows(a.nextWindows, a.spot.timezone)}
<div class="actions">
  !${sendButton(a, csrf)}
  <a href="/console/alerts/${a.id}">Delivery log<span class="visually-hidden"> of ${a.name}</span></a>
  <a href="/console/alerts/${a.id}/delete">Delete<span class="visually-hidden"> ${a.name}</span></a>
</div>
</li>`;
}

function createdCard(c: CreatedAlert): string {
  return html`<section class="card" aria-labelledby="new-alert-title">
<h2 id="new-alert-title">Your new alert &ldquo;${c.name}&rdquo;</h2>
<p class="warning"><strong>Copy these now.</strong> This is the only time they are shown. If you lose them, delete the alert and create another.</p>
!${c.secret === null
  ? ""
  : html`<h3>Webhook signing secret</h3><p class="muted">Check each request's <code>webhook-signature</code> header with it (Standard Webhooks).</p>!${copyBlock("new-alert-secret", c.secret, "webhook signing secret", true)}`}
<h3>Calendar feed</h3>
<p class="muted">Subscribe to it in a calendar app: each window appears as an event. Anyone with the address can read the feed.</p>
!${copyBlock("new-alert-calendar", c.calendarUrl, "calendar feed address", true)}
</section>`;
}

/** Find the spot by name (a search that posts the form back, everything typed kept) and pick it, or type its id. */
function spotFields(f: AlertForm, picker: SpotPicker): string {
  const chosen = picker.chosen[0];
  const found =
    picker.found === null
      ? ""
      : picker.found.length > 0
        ? html`<p class="found-title" id="spot-results" role="status">Spots matching &ldquo;${picker.query}&rdquo;: pick one.</p><ul class="choices" aria-labelledby="spot-results">!${picker.found.map((s) => spotOption(s, false, "radio"))}</ul>`
        : html`<p class="muted" role="status">!${picker.problem ? html`${picker.problem}` : html`No spot matches &ldquo;${picker.query}&rdquo;. Try another spelling, a town or a region.`}</p>`;
  return html`<fieldset class="spots" id="spot-search">
  <legend>Spot <span class="hint">Find it by name and pick it, or type its id.</span></legend>
  !${chosen ? html`<p class="found-title" id="spot-chosen">Chosen:</p><ul class="choices" aria-labelledby="spot-chosen">!${spotOption(chosen, true, "radio")}</ul>` : ""}
  <label for="alert-q">Find a spot by name <span class="hint">a spot, a town, a region or a country, e.g. &ldquo;Supertubos&rdquo; or &ldquo;Nazar&eacute;&rdquo;.</span></label>
  <div class="search-row"><input id="alert-q" name="q" type="search" value="${picker.found === null ? f.q : picker.query}" maxlength="200" autocomplete="off"><button type="submit" name="find" value="1" class="secondary" formaction="/console/alerts#spot-search" formnovalidate>Search</button></div>
  !${found}
  <label for="alert-spot">Or the spot id <span class="hint">The <code>id</code> of <code>GET /v1/spots?q=&hellip;</code>, e.g. &ldquo;supertubos&rdquo;.</span></label>
  <input id="alert-spot" name="spotId" type="text" value="${f.spotId}" spellcheck="false" autocomplete="off">
</fieldset>`;
}

function alertFormHtml(csrf: string, keys: readonly KeyView[], f: AlertForm, picker: SpotPicker): string {
  const option = (value: string, label: string, chosen: string) => html`<option value="${value}"!${value === chosen ? " selected" : ""}>${label}</option>`;
  const check = (on: boolean) => (on ? " checked" : "");
  return html`<form method="post" action="/console/alerts" class="card" id="alert-form">
  !${csrfField(csrf)}
  <label for="alert-key">Key <span class="hint">The alert belongs to this key; its events link to the spot's forecast.</span></label>
  <select id="alert-key" name="key">!${keys.map((k) => option(k.id, `${k.name} (${k.prefix}...)`, f.keyId))}</select>
  !${spotFields(f, picker)}
  <fieldset class="spots">
  <legend>Send to</legend>
  <ul class="choices">
  <li><label><input type="radio" name="delivery" value="webhook"!${check(f.delivery !== "email")}> <span>a webhook <span class="muted">(a signed JSON POST)</span></span></label></li>
  <li><label><input type="radio" name="delivery" value="email"!${check(f.delivery === "email")}> <span>an e-mail address</span></label></li>
  </ul>
  <label for="alert-target">Webhook URL or e-mail address <span class="hint">An http:// or https:// URL of at most ${MAX_WEBHOOK_URL_LENGTH} characters on a public address, or an e-mail address.</span></label>
  <input id="alert-target" name="target" type="text" required value="${f.target}" spellcheck="false" autocomplete="off">
  </fieldset>
  <label for="alert-name">Name <span class="hint">Optional, up to ${ALERT_NAME_MAX} characters; the spot's name when left empty.</span></label>
  <input id="alert-name" name="name" type="text" maxlength="${ALERT_NAME_MAX}" value="${f.name}">
  <fieldset class="spots">
  <legend>When <span class="hint">Hours that meet every line below make a window; each window is sent once.</span></legend>
  <div class="inline-form">
  <div><label for="alert-min-wave">Min wave (optional)</label><input id="alert-min-wave" name="minWave" type="text" inputmode="decimal" value="${f.minWave}" placeholder="0" aria-describedby="alert-wave-hint"></div>
  <div><label for="alert-max-wave">Max wave (optional)</label><input id="alert-max-wave" name="maxWave" type="text" inputmode="decimal" value="${f.maxWave}" aria-describedby="alert-wave-hint"></div>
  <div><label for="alert-units">in</label><select id="alert-units" name="units">!${[option("metric", "metres", f.units), option("imperial", "feet", f.units)]}</select></div>
  </div>
  <p class="hint" id="alert-wave-hint">Significant wave height, 0 to ${MAX_WAVE_M} m (${feet(MAX_WAVE_M)} ft), like 1.5 m or 4 ft; no minimum when left empty. Shown back in the unit chosen.</p>
  <div class="inline-form">
  <div><label for="alert-min-rating">Min rating (optional)</label><select id="alert-min-rating" name="minRating">!${[option("", "any", f.minRating), ...[1, 2, 3, 4, 5].map((r) => option(String(r), `${r} or better`, f.minRating))]}</select></div>
  <div><label for="alert-level">for the level</label><select id="alert-level" name="level">!${LEVELS.map((l) => option(l, l, f.level))}</select></div>
  </div>
  <p class="found-title" id="alert-wind">Wind <span class="hint">Tick none for any wind.</span></p>
  <ul class="choices" aria-labelledby="alert-wind">!${WIND_TYPES.map((w) => html`<li><label><input type="checkbox" name="wind" value="${w}"!${check(f.wind.includes(w))}> <span>${w}</span></label></li>`)}</ul>
  <ul class="choices"><li><label><input type="checkbox" name="daylight" value="1"!${check(f.daylight)}> <span>Daylight only <span class="muted">(between sunrise and sunset)</span></span></label></li></ul>
  <label for="alert-confidence">Min confidence (optional) <span class="hint">How sure the forecast is of the hour.</span></label>
  <select id="alert-confidence" name="minConfidence">!${[option("", "any", f.minConfidence), ...CONFIDENCE_LEVELS.map((c) => option(c, c, f.minConfidence))]}</select>
  </fieldset>
  <button type="submit">Create alert</button>
</form>`;
}

export function alertsPage(
  p: OwnerPage,
  o: { alerts: readonly AlertWithWindows[]; keys: readonly KeyView[]; allowance: AlertAllowance; plan: string; created?: CreatedAlert; form?: AlertForm; picker: SpotPicker },
): string {
  const active = o.keys.filter((k) => k.revokedAt === null);
  const form =
    active.length === 0
      ? html`<p>Create a <a href="/console/keys">key</a> first: an alert belongs to one of your keys.</p>`
      : o.allowance.count >= o.allowance.max && !o.form
        ? html`<p class="warning">Your plan (${o.plan}) allows ${o.allowance.max} alerts and you have ${o.allowance.count}. Delete one to create another.</p>`
        : alertFormHtml(p.viewer.csrf, active, o.form ?? { ...EMPTY_FORM, keyId: active[0]!.id }, o.picker);
  return page(
    { title: "Alerts", viewer: p.viewer, section: "alerts", notice: p.notice, error: p.error, assetVersion: p.assetVersion },
    html`!${o.created ? createdCard(o.created) : ""}
<p>An alert watches one spot's forecast and tells you when the surf is on: a signed webhook or an e-mail for each new window, and a calendar feed of the windows. ${o.allowance.count} of ${o.allowance.max} alerts in use.</p>
!${o.alerts.length > 0 ? html`<ul class="embeds">!${o.alerts.map((a) => alertCard(a, o.keys, p.viewer.csrf))}</ul>` : html`<p class="muted">No alerts yet.</p>`}
<h2 id="new-alert">Create an alert</h2>
!${form}`,
  );
}

const OUTCOME_WORDS: Record<DeliveryLogRow["outcome"], string> = {
  pending: "waiting to be sent",
  delivered: "delivered",
  failed: "failed",
  gone: "gone (the receiver answered 410: the alert is off)",
  refused: "refused (the target is not allowed, or e-mail is not set up)",
};

const EVENT_WORDS: Record<DeliveryLogRow["event"], string> = { window: "window", test: "test", confirmation: "confirmation e-mail" };

function deliveryRow(d: DeliveryLogRow, alertId: string, csrf: string, timeZone: string): string {
  const at = zonedDateTime(d.at, timeZone);
  const again = d.canSendAgain
    ? html`<form method="post" action="/console/alerts/${alertId}/deliveries/${d.id}/send-again">!${csrfField(csrf)}<button type="submit" class="secondary">Send again<span class="visually-hidden"> attempt ${d.attempt} of ${at}</span></button></form>`
    : "";
  return html`<tr><td>${at}</td><td>${EVENT_WORDS[d.event]}</td><td>${d.window?.local ?? ""}</td><td class="num">${d.attempt}</td><td>${OUTCOME_WORDS[d.outcome]}</td><td class="num">${d.statusCode ?? ""}</td><td>${d.error ?? ""}</td><td>!${again}</td></tr>`;
}

/** One alert with its delivery log, newest first. */
export function alertLogPage(p: OwnerPage, o: { alert: AlertWithWindows; deliveries: readonly DeliveryLogRow[] }): string {
  const a = o.alert;
  return page(
    { title: `Alert “${a.name}”`, viewer: p.viewer, section: "alerts", notice: p.notice, error: p.error, assetVersion: p.assetVersion },
    html`<p><a href="/console/alerts">&larr; All alerts</a></p>
<div class="card">
<p>${a.spot.name} <span class="muted">(<code>${a.spot.id}</code>)</span> &middot; !${status(a)}</p>
<p>When: ${describeCondition(a.condition)}</p>
<p class="target">To: ${a.delivery === "webhook" ? "webhook" : "e-mail"} <code>${a.target}</code></p>
!${sendButton(a, p.viewer.csrf, "actions")}
</div>
<h2 id="log-title">Delivery log</h2>
<p class="muted">Times are the spot's local time (${a.spot.timezone}), each with its zone's abbreviation. A new alert sends one event per window of the week at once, then one per new window. A failed delivery is retried on its own for a while; &ldquo;Send again&rdquo; tries it once more now. The log keeps ${DELIVERY_LOG_MS / DAY_MS} days.</p>
!${o.deliveries.length > 0 ? html`<p class="scroll-hint" id="log-hint">Swipe the table sideways for every column &rarr;</p>` : ""}
<div class="table-wrap wide" role="region" aria-labelledby="log-title"!${o.deliveries.length > 0 ? ' aria-describedby="log-hint"' : ""} tabindex="0">
<table>
<thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Window</th><th scope="col">Attempt</th><th scope="col">Outcome</th><th scope="col">Status</th><th scope="col">Error</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>!${o.deliveries.length > 0 ? o.deliveries.map((d) => deliveryRow(d, a.id, p.viewer.csrf, a.spot.timezone)) : html`<tr><td colspan="8">Nothing sent yet.</td></tr>`}</tbody>
</table>
</div>`,
  );
}

export function deleteAlertPage(p: OwnerPage, a: AlertWithWindows): string {
  return page(
    { title: "Delete alert", viewer: p.viewer, section: "alerts", assetVersion: p.assetVersion },
    confirmCard(
      p.viewer.csrf,
      html`Delete the alert <strong>${a.name}</strong> at ${a.spot.name}? Nothing more is sent for it, its calendar feed stops and its delivery log is deleted. This cannot be undone.`,
      `/console/alerts/${a.id}/delete`,
      "Delete",
      "/console/alerts",
    ),
  );
}
