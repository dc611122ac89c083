/**
 * The embed's stylesheet and the screen mode's script, embedded in the binary and served as files: the page's
 * Content-Security-Policy allows no inline style or script. Colours: every colour-coded value is also written as
 * text, and no colour means two things. Wind types are Okabe–Ito green, orange and vermillion (offshore, cross,
 * onshore: good to bad, safe for the common colour-vision deficiencies); ratings are a sequential scale of one
 * hue no other mark uses, purple, grey for 1 then darker with each step in the light theme (lighter in the dark
 * one), so a rating reads by lightness alone, in any colour vision and in greyscale print.
 */
export const EMBED_CSS = `
:root{--bg:#ffffff;--fg:#15232d;--muted:#4d5f6b;--line:#d3dde3;--panel:#f6f9fb;--night:rgba(21,35,45,.09);--band:#56B4E9;--band-line:#0072B2;--period:#15232d;--tide:#0072B2;--wind:#4d5f6b;--link:#005a8c;
--offshore:#009E73;--cross:#E69F00;--onshore:#D55E00;--offshore-text:#00684c;--cross-text:#7a4d00;--onshore-text:#a83f00;--r1:#9aa5ad;--r2:#a58ad4;--r3:#8160c0;--r4:#5f3ea6;--r5:#3f1d84}
.theme-dark{--bg:#0f1a21;--fg:#e8eef2;--muted:#a9b8c2;--line:#34434d;--panel:#16242d;--night:rgba(0,0,0,.35);--band:#2f7fb0;--band-line:#56B4E9;--period:#e8eef2;--tide:#7cc6f0;--wind:#a9b8c2;--link:#8fd0ff;
--offshore:#2fc39b;--cross:#f0b000;--onshore:#ff7a2f;--offshore-text:#2fc39b;--cross-text:#f0b000;--onshore-text:#ff8f52;--r1:#6b7780;--r2:#6f58a8;--r3:#927ad0;--r4:#b6a0f0;--r5:#dccfff}
*{box-sizing:border-box}
html{background:var(--bg);color:var(--fg);font:16px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
body{margin:0;padding:12px}
.mode-page body{max-width:1400px;margin:0 auto}
a{color:var(--link)}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
h2{font-size:1.3rem;margin:0}
h3{font-size:1rem}
.country{font-weight:400;color:var(--muted);font-size:.95rem}
.meta{margin:2px 0 10px;color:var(--muted);font-size:.85rem}
.spot{border-bottom:1px solid var(--line);padding:10px 0 16px}
.now{display:grid;grid-template-columns:repeat(auto-fit,minmax(210px,1fr));gap:10px;margin-bottom:10px}
.stat{background:var(--panel);border-radius:6px;padding:8px 10px;display:flex;flex-direction:column}
.label{color:var(--muted);font-size:.8rem;text-transform:uppercase;letter-spacing:.04em}
.value{font-size:1.35rem;font-weight:600}
.sub{color:var(--muted);font-size:.85rem}
.wind-type{text-transform:capitalize}
.wind-type.offshore{color:var(--offshore-text)}.wind-type.cross{color:var(--cross-text)}.wind-type.onshore{color:var(--onshore-text)}
.ratings{list-style:none;margin:0;padding:8px 10px;background:var(--panel);border-radius:6px;display:flex;flex-direction:column;gap:4px;font-size:.85rem}
.ratings li{display:grid;grid-template-columns:6.5em minmax(60px,1fr) 2em;align-items:center;gap:6px}
.level{text-transform:capitalize}
.ratings .band{display:grid;grid-template-columns:repeat(5,1fr);gap:2px;height:12px}
.cell{background:var(--line);border-radius:2px}
.r1 .cell.on{background:var(--r1)}.r2 .cell.on{background:var(--r2)}.r3 .cell.on{background:var(--r3)}.r4 .cell.on{background:var(--r4)}.r5 .cell.on{background:var(--r5)}
.score{text-align:right;font-variant-numeric:tabular-nums}
.week{margin:0}
/* 920 px keeps the chart's 12-unit labels at 11 px or more (12 x 920 / 1000); narrower, only the chart scrolls. */
.plot{overflow-x:auto;overflow-y:hidden}
.plot:focus-visible{outline:3px solid var(--link);outline-offset:2px}
svg.chart{display:block;width:100%;min-width:920px;height:auto}
.scroll-hint{display:none;margin:0 0 4px;font-size:.85rem;color:var(--muted)}
@media (max-width:943.98px){.mode-page .scroll-hint{display:block}}
.chart .panel{fill:var(--panel)}
.chart .night{fill:var(--night)}
.chart .day{stroke:var(--line);stroke-width:1}
.chart .tick{fill:var(--muted);font-size:12px}
.chart .ptitle{fill:var(--fg);font-size:12px}
.chart .band{fill:var(--band);fill-opacity:.75;stroke:var(--band-line);stroke-width:1}
.chart .period{fill:none;stroke:var(--period);stroke-width:1.2;stroke-dasharray:4 3}
.chart .wind{fill:none;stroke:var(--wind);stroke-width:1.2}
.chart .tide{fill:none;stroke:var(--tide);stroke-width:2}
.chart .extreme{fill:var(--tide)}
.arrow.offshore{fill:var(--offshore)}.arrow.cross{fill:var(--cross)}.arrow.onshore{fill:var(--onshore)}.arrow.unknown{fill:var(--muted)}
.best.r1{fill:var(--r1)}.best.r2{fill:var(--r2)}.best.r3{fill:var(--r3)}.best.r4{fill:var(--r4)}.best.r5{fill:var(--r5)}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:.8rem;color:var(--muted);margin-top:4px}
.key{display:inline-block;width:14px;height:10px;margin-right:4px;vertical-align:middle;border-radius:2px}
.key.band{background:var(--band)}.key.period{border-top:2px dashed var(--period);height:0}.key.tide{border-top:3px solid var(--tide);height:0}.key.night{background:var(--night);border:1px solid var(--line)}
.key.arrow.offshore{background:var(--offshore)}.key.arrow.cross{background:var(--cross)}.key.arrow.onshore{background:var(--onshore)}
.ramp .key{width:.75em;height:.75em;margin:0 .15em 0 .45em}.key.r2{background:var(--r2)}.key.r3{background:var(--r3)}.key.r4{background:var(--r4)}.key.r5{background:var(--r5)}
.data{margin-top:8px;font-size:.85rem}
.data summary{cursor:pointer;color:var(--link)}
.table-wrap{overflow-x:auto;max-height:24rem}
table{border-collapse:collapse;width:100%}
caption{text-align:left;color:var(--muted);padding:4px 0}
th,td{padding:2px 8px;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
.tides{columns:2;padding-left:1.2em}
.credits{font-size:.8rem;color:var(--muted);padding-top:8px}
.message{max-width:36rem;margin:15vh auto;text-align:center}
.empty{color:var(--muted)}
@media print{html{-webkit-print-color-adjust:exact;print-color-adjust:exact}.plot{overflow:visible}svg.chart{min-width:0}.data,.mode-page .scroll-hint{display:none}.spot{break-inside:avoid}}
/* Screen mode: a shop TV, 1920x1080 or 1080x1920, one spot at a time, nothing to click. */
.mode-screen body{padding:2vmin 3vmin;height:100vh;display:flex;flex-direction:column}
.mode-screen main{flex:1;min-height:0;display:flex;flex-direction:column}
.mode-screen .spot{border:0;flex:1;min-height:0;display:flex;flex-direction:column;padding:0}
.mode-screen .spot+.spot{display:none}
.mode-screen .rotating .spot{display:none}
.mode-screen .rotating .spot.current{display:flex}
.mode-screen h2{font-size:5vmin}
.mode-screen .meta{font-size:2.2vmin}
.mode-screen .now{grid-template-columns:repeat(4,1fr);gap:1.5vmin}
.mode-screen .label{font-size:1.8vmin}
.mode-screen .value{font-size:3.6vmin}
.mode-screen .country{font-size:2.4vmin}
.mode-screen .week{flex:1;min-height:0;display:flex;flex-direction:column;overflow:hidden}
.mode-screen .plot{flex:1;min-height:0;display:flex;flex-direction:column;overflow:hidden}
.mode-screen .sub,.mode-screen .ratings{font-size:2vmin}
.mode-screen .ratings .band{height:2vmin}
.mode-screen .data{display:none}
.mode-screen .legend{font-size:1.8vmin}
.mode-screen .credits{font-size:1.6vmin}
.mode-screen svg.chart{min-width:0;flex:1;min-height:0;height:100%}
@media (orientation:portrait){.mode-screen .now{grid-template-columns:repeat(2,1fr)}.mode-screen .value{font-size:4.4vmin}.mode-screen .sub,.mode-screen .ratings{font-size:2.3vmin}
.mode-screen .spot{justify-content:space-evenly}.mode-screen .week,.mode-screen .plot{flex:0 1 auto}.mode-screen svg.chart{flex:0 1 auto;height:auto}.mode-screen .legend{font-size:2.4vmin}}
`;

/** A wave in a square, for the browser tab (the page's CSP allows images from this server only). */
export const EMBED_ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#0072B2"/><path d="M4 21c4 0 5-6 10-6s5 6 9 6 4-3 5-3v8H4z" fill="#fff"/></svg>`;

/**
 * Screen mode: show one spot at a time, the next every 20 s, and reload when the server has a newer picture (its
 * stamp moves with a new forecast, new tide rows and every hour) or the embed has gone (the 404 page then shows). Without script the first spot shows alone.
 */
export const SCREEN_JS = `"use strict";
(function () {
  var body = document.body;
  var spots = Array.prototype.slice.call(document.querySelectorAll(".spot"));
  var current = 0;
  function show(i) {
    spots.forEach(function (s, j) { s.classList.toggle("current", j === i); });
  }
  if (spots.length > 0) {
    body.classList.add("rotating");
    show(0);
    if (spots.length > 1) setInterval(function () { current = (current + 1) % spots.length; show(current); }, 20000);
  }
  var url = body.getAttribute("data-stamp-url");
  var stamp = body.getAttribute("data-stamp");
  if (!url || !stamp) return;
  setInterval(function () {
    fetch(url, { cache: "no-store", credentials: "omit" })
      .then(function (r) { if (r.status === 404 || r.status === 429) location.reload(); return r.ok ? r.json() : null; })
      .then(function (j) { if (j && j.stamp && j.stamp !== stamp) location.reload(); })
      .catch(function () {});
  }, 60000);
})();
`;
