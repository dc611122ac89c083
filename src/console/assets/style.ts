/** The console's stylesheet, served from the binary at /console/assets/console.css (no CDN, no build step). */
export const STYLE = String.raw`
:root {
  --ink: #14222b; --muted: #4d5f6b; --line: #d3dde3; --bg: #f5f8fa; --card: #fff;
  --accent: #005f8f; --accent-ink: #fff; --danger: #a3261b; --ok: #17663a; --warn-bg: #fff4d6; --warn-line: #d49b00;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg);
  line-height: 1.5;
}
* { box-sizing: border-box; }
body { margin: 0; }
a { color: var(--accent); }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible, [tabindex]:focus-visible {
  outline: 3px solid #f0a500; outline-offset: 2px;
}
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.skip { position: absolute; left: -999px; top: 0; background: var(--card); padding: .5rem 1rem; }
.skip:focus { left: .5rem; z-index: 10; }
header.top { background: #0b3a53; color: #fff; }
header.top .bar { position: relative; max-width: 72rem; margin: 0 auto; padding: .6rem 1rem; display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; align-items: center; }
header.top .brand { font-weight: 700; color: #fff; text-decoration: none; margin-right: auto; }
header.top nav ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: .25rem .9rem; }
header.top nav a { color: #fff; text-decoration: none; padding: .2rem 0; border-bottom: 2px solid transparent; }
header.top nav a[aria-current="page"] { border-bottom-color: #7fd0ff; }
header.top form { margin: 0; }
header.top button.link { background: none; border: 1px solid #8fb3c7; color: #fff; padding: .2rem .7rem; border-radius: .3rem; cursor: pointer; font: inherit; }
main { max-width: 72rem; margin: 0 auto; padding: 1.25rem 1rem 3rem; }
main.narrow { max-width: 28rem; }
h1 { font-size: 1.6rem; margin: .3rem 0 1rem; }
h2 { font-size: 1.2rem; margin: 1.8rem 0 .6rem; }
h3 { font-size: 1rem; margin: 1.2rem 0 .4rem; }
.card > :first-child { margin-top: 0; }
.card > :last-child { margin-bottom: 0; }
form.card > label:first-of-type { margin-top: 0; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: .5rem; padding: 1rem 1.1rem; margin: 0 0 1rem; }
.grid { display: grid; gap: .75rem; grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); margin-bottom: 1rem; }
.grid .card { margin: 0; }
.stat { font-size: 1.5rem; font-weight: 700; display: block; }
.muted { color: var(--muted); }
.notice { border-left: 4px solid var(--ok); background: #e8f5ec; padding: .6rem .9rem; margin: 0 0 1rem; }
/* A refusal may quote what was typed or a setting's name: a long word wraps rather than widen the page. */
.error { border-left: 4px solid var(--danger); background: #fbeae8; padding: .6rem .9rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
.warning { border: 1px solid var(--warn-line); background: var(--warn-bg); padding: .6rem .9rem; border-radius: .3rem; }
label { display: block; font-weight: 600; margin: .8rem 0 .25rem; }
.hint { display: block; font-weight: 400; color: var(--muted); font-size: .9rem; }
input[type=text], input[type=email], input[type=password], input[type=number], input[type=search], select, textarea {
  font: inherit; padding: .45rem .55rem; border: 1px solid #8a9ba6; border-radius: .3rem; width: 100%; max-width: 26rem; background: #fff; color: var(--ink);
}
.embeds { list-style: none; padding: 0; }
.windows { margin: .2rem 0 .9rem; padding-left: 1.3rem; }
fieldset.spots { border: 1px solid var(--line); border-radius: .4rem; padding: .5rem .9rem .9rem; margin: .9rem 0 0; min-width: 0; }
fieldset.spots { padding-top: .8rem; }
/* The legend inside the frame, like the other labels (a legend on the border squeezes its hint). */
fieldset.spots legend { float: left; width: 100%; padding: 0; margin-bottom: .4rem; font-weight: 600; }
fieldset.spots legend + * { clear: both; }
fieldset.spots > label:first-of-type { margin-top: .6rem; }
.search-row { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; max-width: 26rem; }
.search-row input[type=search] { flex: 1 1 8rem; width: auto; min-width: 0; }
.search-row button { margin-top: 0; }
.found-title { margin: .7rem 0 .2rem; font-weight: 600; }
.choices { list-style: none; padding: 0; margin: 0 0 .4rem; }
.choices label { display: flex; gap: .6rem; align-items: baseline; font-weight: 400; margin: 0; padding: .3rem .1rem; cursor: pointer; }
.choices input { flex: none; width: 1.1rem; height: 1.1rem; margin: 0; transform: translateY(.15rem); }
.spot-name { font-weight: 600; }
.inline-form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end; margin-top: .6rem; }
form.inline-form { margin-top: 0; }
.inline-form label { margin: 0 0 .25rem; }
.inline-form > div { flex: 0 1 20rem; }
button, .button {
  font: inherit; background: var(--accent); color: var(--accent-ink); border: 1px solid var(--accent); border-radius: .3rem;
  padding: .45rem 1rem; cursor: pointer; text-decoration: none; display: inline-block; margin-top: .8rem;
}
.inline-form button { margin-top: 0; }
button.secondary, .button.secondary { background: #fff; color: var(--accent); }
button.danger { background: var(--danger); border-color: var(--danger); }
.table-wrap { position: relative; overflow-x: auto; border: 1px solid var(--line); border-radius: .4rem; background: var(--card); margin: 0 0 1rem; }
table { border-collapse: collapse; width: 100%; font-size: .95rem; }
th, td { text-align: left; padding: .45rem .65rem; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { background: #eef3f6; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr:last-child td, tr:last-child th { border-bottom: 0; }
.status-active { color: var(--ok); font-weight: 600; }
.status-revoked, .status-disabled { color: var(--danger); font-weight: 600; }
code, pre { font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; font-size: .88rem; }
pre { background: #0f2430; color: #e6f1f7; padding: .75rem .9rem; border-radius: .4rem; overflow-x: auto; margin: .3rem 0 .8rem; }
.copyable { position: relative; }
pre.wrap { white-space: pre-wrap; overflow-wrap: anywhere; }
.copy { margin: .4rem .5rem .4rem 0; padding: .25rem .8rem; font-size: .9rem; }
details.config { margin: .6rem 0; }
details.config summary { padding: .3rem 0; }
input.secret { font-family: ui-monospace, Menlo, Consolas, monospace; width: 100%; max-width: 40rem; font-size: .95rem; padding: .5rem; border: 2px solid var(--accent); border-radius: .3rem; background: #f1f8fc; color: var(--ink); }
meter { width: 100%; height: 1.2rem; }
.meter-row { margin: .5rem 0 .9rem; }
.meter-row .label { display: flex; justify-content: space-between; gap: 1rem; flex-wrap: wrap; }
.chart { margin: 0 0 1rem; }
.usage-chart { display: block; width: 100%; overflow: visible; }
.usage-chart .grid { stroke: var(--line); }
.usage-chart .axis { font-size: 12px; fill: var(--muted); }
.usage-chart .value { paint-order: stroke; stroke: var(--card); stroke-width: 4px; stroke-linejoin: round; }
.usage-chart rect { stroke: var(--card); stroke-width: .5px; }
tbody th { background: none; }
.legend { list-style: none; padding: 0; margin: .4rem 0 0; display: flex; flex-wrap: wrap; gap: .3rem 1rem; font-size: .9rem; }
svg.swatch { vertical-align: -1px; margin-right: .35rem; flex: none; }
.table-wrap.fit { width: fit-content; max-width: 100%; }
table.compact { min-width: 18rem; }
/* A table wider than the screen scrolls in its frame, never the page: the hint says so (narrow screens only),
   the day column stays put, and a shadow at the right edge shows there is more (it goes once scrolled there). */
.scroll-hint { display: none; margin: 0 0 .3rem; font-size: .9rem; color: var(--muted); }
.table-wrap.wide {
  background: linear-gradient(to left, var(--card) 30%, rgba(255,255,255,0)) right / 2rem 100% no-repeat local,
    radial-gradient(farthest-side at 100% 50%, rgba(20,34,43,.22), rgba(20,34,43,0)) right / .9rem 100% no-repeat scroll, var(--card);
}
.table-wrap.wide table { background: none; }
.table-wrap.wide th[scope=row], .table-wrap.wide thead th:first-child { position: sticky; left: 0; z-index: 1; background: var(--card); box-shadow: 1px 0 0 var(--line); }
.table-wrap.wide thead th:first-child { background: #eef3f6; }
.table-wrap.wide thead th { white-space: normal; vertical-align: bottom; }
.pager { display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; }
details summary { cursor: pointer; font-weight: 600; }
.actions { display: flex; gap: .6rem; flex-wrap: wrap; align-items: center; }
.actions form { margin: 0; }
.actions button { margin-top: 0; }
@media (max-width: 40rem) {
  .scroll-hint { display: block; }
  h1 { font-size: 1.35rem; }
  main { padding: 1rem .75rem 2rem; }
  th, td { padding: .4rem .45rem; }
}
`;

/** A small wave on a sea-blue tile, so browsers do not ask the API for /favicon.ico. */
export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0b3a53"/><path d="M4 20c4-8 8-8 12 0s8 8 12 0" fill="none" stroke="#7fd0ff" stroke-width="3" stroke-linecap="round"/></svg>`;
