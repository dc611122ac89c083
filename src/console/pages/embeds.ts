/**
 * The keys page's "Forecast pictures" section: the account's embeds with their <iframe> snippets and screen
 * links, a form to make one for a key, and the confirmation page of switching one off (docs/embeds.md).
 */
import { html } from "ghtml";
import type { KeyView } from "../../access/accounts";
import type { EmbedView } from "../../embed/service";
import { MAX_EMBED_ORIGINS, MAX_EMBED_SPOTS, embedLimitsOf } from "../../embed/service";
import { EMBED_LANGS, LANGUAGE_NAMES } from "../../embed/lang";
import { confirmCard, copyBlock, csrfField, formatDay, page, type OwnerPage } from "./layout";
import type { SpotChoice, SpotPicker } from "../service";

/** What the owner typed and ticked, kept when the form comes back (an error, or a search for spots). */
export interface EmbedForm {
  keyId?: string;
  /** Spot ids typed, comma-separated. */
  spots?: string;
  /** Spot ids ticked (found by name). */
  chosen?: string[];
  /** The last name searched for. */
  q?: string;
  origins?: string;
  units?: string;
  theme?: string;
  lang?: string;
}

/** The picture form as sent (POST /console/embeds): a search for spots (the Search button) or a picture to make. */
export function readEmbedForm(form: URLSearchParams): EmbedForm & { find: boolean } {
  return {
    find: form.has("find"),
    keyId: form.get("key") ?? "",
    spots: form.get("spots") ?? "",
    chosen: form.getAll("spot"),
    q: form.get("q") ?? "",
    origins: form.get("origins") ?? "",
    units: form.get("units") ?? "",
    theme: form.get("theme") ?? "",
    lang: form.get("lang") ?? "",
  };
}

/** The spots to show: those ticked, then those typed; each once (ticked and typed too is no mistake). */
export function embedSpotIds(f: EmbedForm): string[] {
  const typed = (f.spots ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
  return [...new Set([...(f.chosen ?? []).map((s) => s.trim()).filter((s) => s !== ""), ...typed])];
}

/** A spot found by name as a choice: a checkbox where several are chosen (pictures), a radio button where one is (alerts). */
export function spotOption(s: SpotChoice, checked: boolean, type: "checkbox" | "radio" = "checkbox"): string {
  const where = [s.region, s.country].filter((part) => part !== null && part !== "").join(", ");
  return html`<li><label><input type="${type}" name="spot" value="${s.id}"!${checked ? " checked" : ""}> <span><span class="spot-name">${s.name}</span> <span class="muted">${where} &middot; <code>${s.id}</code></span></span></label></li>`;
}

/** Find by name (a search that posts the form back, so ticked spots and typed fields are kept), tick, or type ids. */
function spotFields(f: EmbedForm, picker: SpotPicker): string {
  const found =
    picker.found === null
      ? ""
      : picker.found.length > 0
        ? html`<p class="found-title" id="spot-results" role="status">Spots matching &ldquo;${picker.query}&rdquo;: tick the ones to show.</p><ul class="choices" aria-labelledby="spot-results">!${picker.found.map((s) => spotOption(s, false))}</ul>`
        : (picker.problem ? html`<p class="muted" role="status">${picker.problem}</p>` : html`<p class="muted" role="status">No spot matches &ldquo;${picker.query}&rdquo;. Try another spelling, a town or a region.</p>`);
  return html`<fieldset class="spots" id="spot-search">
  <legend>Spots <span class="hint">1 to ${MAX_EMBED_SPOTS}: find them by name and tick them, or type their ids.</span></legend>
  !${picker.chosen.length > 0 ? html`<p class="found-title" id="spot-chosen">Chosen:</p><ul class="choices" aria-labelledby="spot-chosen">!${picker.chosen.map((s) => spotOption(s, true))}</ul>` : ""}
  <label for="embed-q">Find a spot by name <span class="hint">a spot, a town, a region or a country, e.g. &ldquo;Supertubos&rdquo; or &ldquo;Peniche&rdquo;.</span></label>
  <div class="search-row"><input id="embed-q" name="q" type="search" value="${picker.found === null ? (f.q ?? "") : picker.query}" maxlength="200" autocomplete="off"><button type="submit" name="find" value="1" class="secondary" formaction="/console/embeds#spot-search" formnovalidate>Search</button></div>
  !${found}
  <label for="embed-spots">Or spot ids <span class="hint">comma-separated, e.g. &ldquo;pipeline, supertubos&rdquo; (the <code>id</code> of <code>GET /v1/spots?q=&hellip;</code>).</span></label>
  <input id="embed-spots" name="spots" type="text" value="${f.spots ?? ""}" spellcheck="false" autocomplete="off">
</fieldset>`;
}

/** About one spot's height at 1000 px wide (now, chart, legend). */
const SPOT_HEIGHT_PX = 720;

/**
 * The snippet a shop pastes into its page, tall enough for every spot at 1000 px; `style` is theirs to change
 * (our page allows no inline style, theirs may).
 */
export function iframeSnippet(e: Pick<EmbedView, "url" | "spots">): string {
  return `<iframe src="${e.url}" title="Surf forecast" width="100%" height="${80 + SPOT_HEIGHT_PX * e.spots.length}" style="border:0" loading="lazy"></iframe>`;
}

function embedCard(e: EmbedView, keys: readonly KeyView[]): string {
  const key = keys.find((k) => k.id === e.keyId);
  return html`<li class="card">
<p><strong>${e.spotNames.join(", ")}</strong> <span class="muted">&middot; key ${key?.name ?? e.keyId} &middot; ${e.units}, ${e.theme}, ${LANGUAGE_NAMES[e.lang] ?? e.lang} &middot; created ${formatDay(e.createdAt)}</span></p>
<p class="muted">May be framed by: ${e.origins.length > 0 ? e.origins.join(", ") : "pages of this server only"}</p>
!${copyBlock(`embed-${e.id}`, iframeSnippet(e), "iframe snippet", true)}
<p><a href="${e.url}" target="_blank" rel="noopener">Open the page</a> &middot; <a href="${e.url}?mode=screen" target="_blank" rel="noopener">Shop TV layout</a> &middot; <a href="/console/embeds/${e.id}/revoke">Switch off<span class="visually-hidden"> the picture of ${e.spotNames.join(", ")}</span></a></p>
</li>`;
}

export function embedsSection(p: OwnerPage, o: { embeds: readonly EmbedView[]; keys: readonly KeyView[]; form?: EmbedForm; picker?: SpotPicker }): string {
  // Switched on, of a key that is not revoked (an embed of a key revoked before revoking switched embeds off with
  // it is no longer served: docs/embeds.md "Limits per account").
  const active = o.embeds.filter((e) => e.revokedAt === null && o.keys.some((k) => k.id === e.keyId && k.revokedAt === null));
  const keys = o.keys.filter((k) => k.revokedAt === null);
  const f = o.form ?? {};
  const plan = o.keys[0]?.plan;
  const limits = plan ? embedLimitsOf(plan) : null;
  const allowance = limits === null ? "" : limits.viewMinutesPerDay >= 1440 ? " On your plan a picture may be shown every minute of the day." : ` On your plan a picture may be shown in up to ${limits.viewMinutesPerDay} different minutes a day.`;
  const option = (value: string, label: string, chosen: string | undefined) => html`<option value="${value}"!${value === chosen ? " selected" : ""}>${label}</option>`;
  const form =
    keys.length === 0
      ? html`<p>Create a key first: a forecast picture counts its views on one of your keys.</p>`
      : html`<form method="post" action="/console/embeds" class="card" id="embed-form">
  !${csrfField(p.viewer.csrf)}
  <label for="embed-key">Key <span class="hint">Views never use this key's API quota: the first view of each minute shows as &ldquo;embed&rdquo; in its usage, later views that minute are not counted.${allowance} The key itself never appears in the page.</span></label>
  <select id="embed-key" name="key">!${keys.map((k) => option(k.id, `${k.name} (${k.prefix}...)`, f.keyId))}</select>
  !${spotFields(f, o.picker ?? { chosen: [], query: f.q ?? "", found: null })}
  <label for="embed-origins">Sites allowed to show it <span class="hint">Up to ${MAX_EMBED_ORIGINS}, one per line: scheme and host (and port) only, like https://shop.example and https://www.shop.example; no paths or wildcards. Leave empty to allow only this server's own pages.</span></label>
  <textarea id="embed-origins" name="origins" rows="2">${f.origins ?? ""}</textarea>
  <div class="inline-form">
  <div><label for="embed-units">Units</label><select id="embed-units" name="units">!${[option("metric", "metric (m, km/h)", f.units), option("imperial", "imperial (ft, mph)", f.units)]}</select></div>
  <div><label for="embed-theme">Theme</label><select id="embed-theme" name="theme">!${[option("light", "light", f.theme), option("dark", "dark", f.theme)]}</select></div>
  <div><label for="embed-lang">Language</label><select id="embed-lang" name="lang">!${EMBED_LANGS.map((l) => option(l, LANGUAGE_NAMES[l] ?? l, f.lang || "en"))}</select></div>
  </div>
  <button type="submit">Create forecast picture</button>
</form>`;
  return html`<h2 id="embeds">Forecast pictures for your site and shop TV</h2>
<p>A public page with the week's forecast of up to ${MAX_EMBED_SPOTS} spots, drawn on the server: paste its <code>&lt;iframe&gt;</code> snippet into your site, or open its TV layout on the screen in your shop.!${limits ? html` Your plan allows ${limits.activeEmbeds} at once.` : ""}</p>
!${active.length > 0 ? html`<ul class="embeds">!${active.map((e) => embedCard(e, o.keys))}</ul>` : html`<p class="muted">No forecast pictures yet.</p>`}
!${form}`;
}

export function revokeEmbedPage(p: OwnerPage, e: EmbedView): string {
  return page(
    { title: "Switch off forecast picture", viewer: p.viewer, section: "keys", assetVersion: p.assetVersion },
    confirmCard(
      p.viewer.csrf,
      html`Switch off the forecast picture of <strong>${e.spotNames.join(", ")}</strong>? Its page answers &ldquo;not available&rdquo; within a second, on your site and on your shop TV. This cannot be undone; you can create a new one.`,
      `/console/embeds/${e.id}/revoke`,
      "Switch off",
      "/console/keys#embeds",
    ),
  );
}
