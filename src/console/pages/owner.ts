/** The account owner's pages: overview with quick start, keys, usage. */
import { html } from "ghtml";
import type { KeyView } from "../../access/accounts";
import type { ConsoleKey, Overview, SpotPicker, UsageTable } from "../service";
import { KEY_NAME_MAX } from "../service";
import { endpointTotals, seriesCount, swatch, usageChart, usageSeries } from "./chart";
import { confirmCard, copyBlock, csrfField, formatDay, formatNumber, page, type OwnerPage } from "./layout";
import { embedsSection, type EmbedForm } from "./embeds";
import type { EmbedView } from "../../embed/service";

const PLACEHOLDER = "YOUR_API_KEY";

export function attributionSnippet(publicUrl: string): string {
  return `<p>Surf data by <a href="${publicUrl}">Surfcast</a> · weather data by <a href="https://open-meteo.com/">Open-Meteo.com</a> (CC BY 4.0)</p>`;
}

export function quickStart(publicUrl: string): { curl: string; claudeDesktop: string; cursor: string; vscode: string } {
  const h = `-H "X-API-Key: ${PLACEHOLDER}"`;
  const curl = [
    `curl ${h} "${publicUrl}/v1/spots?q=pipeline"`,
    `curl ${h} "${publicUrl}/v1/spots/nearby?lat=38.7&lng=-9.4&radius=30"`,
    `curl ${h} "${publicUrl}/v1/spots/SPOT_ID"`,
    `curl ${h} "${publicUrl}/v1/spots/SPOT_ID/forecast?days=3"`,
    `curl ${h} "${publicUrl}/v1/spots/SPOT_ID/tides?days=3"`,
    `curl ${h} "${publicUrl}/v1/usage"`,
  ].join("\n");
  const mcp = `${publicUrl}/mcp`;
  // Two-space JSON with arrays of plain values on one line, as people write these files.
  const json = (value: unknown) => JSON.stringify(value, null, 2).replace(/\[\n\s*("[^\n]*"|[\d.]+|true|false)(,\n\s*("[^\n]*"|[\d.]+|true|false))*\n\s*\]/g, (list) => JSON.stringify(JSON.parse(list)).replace(/","/g, '", "'));
  return {
    curl,
    claudeDesktop: json({
      mcpServers: {
        surfcast: {
          command: "npx",
          args: ["-y", "mcp-remote", mcp, "--transport", "http-only", "--header", "X-API-Key:${SURFCAST_API_KEY}", ...(mcp.startsWith("http://") && !/^http:\/\/(localhost|127\.0\.0\.1)[:/]/.test(mcp) ? ["--allow-http"] : [])],
          env: { SURFCAST_API_KEY: PLACEHOLDER },
        },
      },
    }),
    cursor: json({ mcpServers: { surfcast: { url: mcp, headers: { "X-API-Key": PLACEHOLDER } } } }),
    vscode: json({
      inputs: [{ type: "promptString", id: "surfcast-key", description: "Surfcast API key", password: true }],
      servers: { surfcast: { type: "http", url: mcp, headers: { "X-API-Key": "${input:surfcast-key}" } } },
    }),
  };
}

function todayMeters(keys: ConsoleKey[], dailyLimit: number): string {
  const active = keys.filter((k) => k.revokedAt === null);
  if (active.length === 0) return html`<p>No active keys yet. <a href="/console/keys">Create your first key</a>.</p>`;
  return active
    .map(
      (k) => html`<div class="meter-row"><div class="label"><span id="m-${k.id}">${k.name} <span class="muted">(${k.prefix}&hellip;)</span></span><span>${formatNumber(k.today)} of ${formatNumber(dailyLimit)}</span></div>
<meter aria-labelledby="m-${k.id}" min="0" max="${dailyLimit}" low="${Math.floor(dailyLimit * 0.8)}" high="${Math.floor(dailyLimit * 0.95)}" optimum="0" value="${Math.min(k.today, dailyLimit)}">${formatNumber(k.today)} of ${formatNumber(dailyLimit)}</meter></div>`,
    )
    .join("");
}

export function overviewPage(p: OwnerPage, o: Overview): string {
  const { account } = o;
  const qs = quickStart(p.publicUrl);
  return page(
    { title: "Overview", viewer: p.viewer, section: "overview", notice: p.notice, error: p.error, assetVersion: p.assetVersion },
    html`<div class="grid">
  <div class="card"><span class="muted">Plan</span><span class="stat">${account.plan}</span></div>
  <div class="card"><span class="muted">Daily limit per key</span><span class="stat">${formatNumber(account.dailyLimit)}</span><span class="muted">requests per UTC day</span></div>
  <div class="card"><span class="muted">Burst limit per key</span><span class="stat">${formatNumber(account.minuteLimit)}</span><span class="muted">requests per minute</span></div>
  <div class="card"><span class="muted">Keys</span><span class="stat">${account.activeKeys} of ${account.maxKeys}</span><span class="muted">active keys allowed</span></div>
</div>
<h2>Today's requests</h2>
<div class="card">
<p>${formatNumber(o.todayTotal)} request${o.todayTotal === 1 ? "" : "s"} so far today (UTC), across all keys. Each key has its own daily limit.</p>
!${todayMeters(o.keys, account.dailyLimit)}
</div>
!${o.attributionRequired
  ? html`<h2>Attribution</h2>
<div class="card"><p>Your plan requires a visible link to the service wherever you show its data. Paste this into your page:</p>
!${copyBlock("attribution", attributionSnippet(p.publicUrl), "attribution snippet", true)}</div>`
  : ""}
<h2>Quick start</h2>
<div class="card">
<p>Base URL: <code>${p.publicUrl}</code>. Send your key in the <code>X-API-Key</code> header (or <code>Authorization: Bearer</code>). Replace <code>${PLACEHOLDER}</code> with a key from the <a href="/console/keys">Keys</a> page and <code>SPOT_ID</code> with an <code>id</code> from a search.</p>
!${copyBlock("curl", qs.curl, "curl examples")}
<h3>MCP clients</h3>
<p>The same data as MCP tools at <code>${p.publicUrl}/mcp</code>, with the same key header.</p>
<details class="config"><summary>Claude Desktop</summary>
<p class="muted">In <code>claude_desktop_config.json</code>, through the <code>mcp-remote</code> bridge (Claude Desktop cannot send a header itself).</p>
!${copyBlock("mcp-claude", qs.claudeDesktop, "Claude Desktop configuration")}</details>
<details class="config"><summary>Cursor</summary>
<p class="muted">In <code>~/.cursor/mcp.json</code>.</p>
!${copyBlock("mcp-cursor", qs.cursor, "Cursor configuration")}</details>
<details class="config"><summary>VS Code</summary>
<p class="muted">In <code>.vscode/mcp.json</code>; VS Code asks for the key once and stores it.</p>
!${copyBlock("mcp-vscode", qs.vscode, "VS Code configuration")}</details>
</div>`,
  );
}

function keyRow(k: ConsoleKey): string {
  const status = k.revokedAt === null ? html`<span class="status-active">active</span>` : html`<span class="status-revoked">revoked</span> <span class="muted">${formatDay(k.revokedAt)}</span>`;
  const action = k.revokedAt === null ? html`<a href="/console/keys/${k.id}/revoke">Revoke<span class="visually-hidden"> ${k.name}</span></a>` : "";
  return html`<tr><td>${k.name}</td><td><code>${k.prefix}&hellip;</code></td><td>${formatDay(k.createdAt)}</td><td>${formatDay(k.lastUsed)}</td><td>!${status}</td><td>!${action}</td></tr>`;
}

export function keysPage(
  p: OwnerPage,
  o: { keys: ConsoleKey[]; activeKeys: number; maxKeys: number; plan: string; created?: { key: string; name: string } | null; name?: string; embeds: readonly EmbedView[]; embedForm?: EmbedForm; spotPicker?: SpotPicker },
): string {
  const full = o.activeKeys >= o.maxKeys;
  const created = o.created
    ? html`<section class="card" aria-labelledby="new-key-title">
<h2 id="new-key-title">Your new key &ldquo;${o.created.name}&rdquo;</h2>
<p class="warning"><strong>Copy it now.</strong> This is the only time the full key is shown; Surfcast keeps only a hash of it. If you lose it, revoke it and create another.</p>
<label for="new-key">API key</label>
<input id="new-key" class="secret" type="text" readonly value="${o.created.key}" spellcheck="false" autocomplete="off">
<div class="actions"><button type="button" class="copy" data-copy="new-key" hidden>Copy key</button><span id="new-key-status" class="muted" role="status"></span></div>
</section>`
    : "";
  const form = full
    ? html`<p class="warning">Your plan (${o.plan}) allows ${o.maxKeys} active keys and you have ${o.activeKeys}. Revoke a key to create another.</p>`
    : html`<form method="post" action="/console/keys" class="card inline-form">
  !${csrfField(p.viewer.csrf)}
  <div><label for="name">Key name <span class="hint">1 to ${KEY_NAME_MAX} characters, e.g. &ldquo;website&rdquo; or &ldquo;shop laptop&rdquo;.</span></label>
  <input id="name" name="name" type="text" required maxlength="${KEY_NAME_MAX}" value="${o.name ?? ""}"></div>
  <button type="submit">Create key</button>
</form>`;
  return page(
    { title: "Keys", viewer: p.viewer, section: "keys", notice: p.notice, error: p.error, assetVersion: p.assetVersion },
    html`!${created}
<p>${o.activeKeys} of ${o.maxKeys} active keys in use.</p>
!${form}
!${o.keys.length > 0 ? html`<p class="scroll-hint" id="keys-hint">Swipe the table sideways for every column &rarr;</p>` : ""}
<div class="table-wrap wide" role="region" aria-label="Your keys"!${o.keys.length > 0 ? ' aria-describedby="keys-hint"' : ""} tabindex="0">
<table>
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>!${o.keys.length > 0 ? o.keys.map(keyRow) : html`<tr><td colspan="6">No keys yet.</td></tr>`}</tbody>
</table>
</div>
<p class="muted">A new or revoked key takes effect on the API within a second. &ldquo;Last used&rdquo; is a UTC day.</p>
!${embedsSection(p, { embeds: o.embeds, keys: o.keys, form: o.embedForm, picker: o.spotPicker })}`,
  );
}

export function revokeConfirmPage(p: OwnerPage, key: KeyView, action: string, back: string): string {
  return page(
    { title: "Revoke key", viewer: p.viewer, section: p.viewer.admin && action.includes("/admin/") ? "admin" : "keys", assetVersion: p.assetVersion },
    confirmCard(
      p.viewer.csrf,
      html`Revoke <strong>${key.name}</strong> (<code>${key.prefix}&hellip;</code>) of ${key.account}? Requests with this key will be refused with 401 within a second. This cannot be undone.`,
      action,
      "Revoke key",
      back,
    ),
  );
}

/** An endpoint's name with line-break opportunities after its dots and underscores (narrow table headers). */
function breakable(name: string): string {
  return name
    .split(/(?<=[._])/)
    .map((part) => html`${part}`)
    .join("<wbr>");
}

export function usagePage(p: OwnerPage, o: { usage: UsageTable; keys: KeyView[]; keyId: string | null }): string {
  const { usage } = o;
  const selected = o.keys.find((k) => k.id === o.keyId);
  const scope = selected ? `key "${selected.name}"` : "all keys";
  const options = [html`<option value="">All keys</option>`, ...o.keys.map((k) => html`<option value="${k.id}"!${k.id === o.keyId ? " selected" : ""}>${k.name} (${k.prefix}&hellip;)${k.revokedAt ? " &mdash; revoked" : ""}</option>`)];
  const series = usageSeries(usage);
  const grouped = series.some((s) => s.endpoints.length > 1);
  const totals = endpointTotals(usage);
  const today = usage.days.at(-1)!;
  const colorOf = (endpoint: string) => series.find((s) => s.endpoints.includes(endpoint))!.color;
  const head = series.map((s) => html`<th scope="col" class="num">!${swatch(s.color)}!${breakable(s.label)}</th>`);
  const rows = [...usage.days].reverse().map(
    (d) => html`<tr><th scope="row">${d.date}</th>!${series.map((s) => html`<td class="num">${formatNumber(seriesCount(s, d.byEndpoint))}</td>`)}<td class="num">${formatNumber(d.total)}</td></tr>`,
  );
  // Busiest first (ties in the table's order), as the chart picks its series.
  const byEndpoint = usage.endpoints.toSorted((a, b) => totals.get(b)! - totals.get(a)!).map(
    (e) => html`<tr><th scope="row">!${swatch(colorOf(e))}${e}</th><td class="num">${formatNumber(totals.get(e)!)}</td><td class="num">${formatNumber(today.byEndpoint[e] ?? 0)}</td></tr>`,
  );
  // Day, the series and the total: beyond five columns the table is wider than a phone and scrolls in its frame.
  const wide = series.length + 2 > 5;
  const csv = `/console/usage.csv${o.keyId ? `?key=${encodeURIComponent(o.keyId)}` : ""}`;
  return page(
    { title: "Usage", viewer: p.viewer, section: "usage", notice: p.notice, error: p.error, assetVersion: p.assetVersion },
    html`<form method="get" action="/console/usage" class="inline-form card">
  <div><label for="key">Key</label><select id="key" name="key" data-autosubmit>!${options}</select></div>
  <button type="submit" class="secondary">Show</button>
</form>
<p>${formatNumber(usage.total)} request${usage.total === 1 ? "" : "s"} in the last 30 UTC days (${scope}). The same figures as <code>GET /v1/usage</code>; <code>/v1/usage</code> itself is not counted.</p>
!${usageChart(usage, series, `Requests per UTC day over the last 30 days, ${scope}, stacked by ${grouped ? "endpoint, the busiest ones alone and the others per API family" : "endpoint"}`)}
!${usage.endpoints.length > 0
  ? html`<h2 id="by-endpoint">By endpoint</h2>
<div class="table-wrap fit" role="region" aria-labelledby="by-endpoint" tabindex="0">
<table class="compact">
<thead><tr><th scope="col">Endpoint</th><th scope="col" class="num">30 days</th><th scope="col" class="num">Today</th></tr></thead>
<tbody>!${byEndpoint}</tbody>
</table>
</div>`
  : ""}
<h2 id="by-day">By day</h2>
<p><a class="button secondary" href="${csv}" download>Download CSV</a> <span class="muted">one column per endpoint</span></p>
!${wide ? html`<p class="scroll-hint" id="by-day-hint">Swipe the table sideways for every column &rarr;</p>` : ""}
<div class="table-wrap!${wide ? " wide" : ""}" role="region" aria-labelledby="by-day"!${wide ? ' aria-describedby="by-day-hint"' : ""} tabindex="0">
<table class="by-day">
<thead><tr><th scope="col">UTC day</th>!${head}<th scope="col" class="num">Total</th></tr></thead>
<tbody>!${rows}</tbody>
</table>
</div>`,
  );
}

/** The usage table as CSV: one row per day, one column per endpoint used, then the total. */
export function usageCsv(usage: UsageTable): string {
  const lines = [["date", ...usage.endpoints, "total"].join(",")];
  for (const d of usage.days) lines.push([d.date, ...usage.endpoints.map((e) => String(d.byEndpoint[e] ?? 0)), String(d.total)].join(","));
  return lines.join("\r\n") + "\r\n";
}
