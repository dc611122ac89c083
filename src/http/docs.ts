/**
 * GET /docs: a browsable API reference rendered from /openapi.json by Scalar (@scalar/api-reference, chosen for
 * its single self-contained browser bundle), embedded in the binary and served from here — no CDN, no fonts
 * fetched from elsewhere (system fonts), so it works offline and behind strict firewalls.
 *
 * The page runs 4 MB of third-party script on the server's own origin (the console's too), so it is held to the
 * strictest policy the bundle renders under (checked in headless Chromium, test/http/security-headers.test.ts):
 *  - script-src 'self': the bundle and the few lines that start it are files (/docs/scalar.js, /docs/init.js);
 *    the page has no inline script, so no hash to keep in step with it and no 'unsafe-inline'.
 *  - style-src 'unsafe-inline' (and nothing else: no stylesheet is loaded): the bundle carries its CSS in the
 *    script and injects it as <style> elements and style attributes at run time (Vue, CodeMirror); without it
 *    the page renders unstyled. Styles cannot run script; the scripts stay 'self'.
 *  - img-src 'self' data: (the page's empty icon and the bundle's are data: URLs); connect-src 'self' (it fetches
 *    /openapi.json only); nothing else may load (default-src 'none': no fonts — system fonts —, no frames,
 *    workers or objects).
 *  - base-uri 'none', form-action 'none', frame-ancestors 'none' (and X-Frame-Options: DENY for old browsers):
 *    nothing may frame the page, retarget its links or submit a form from it.
 * Every answer here carries nosniff: a browser takes the bundle as script only because it is text/javascript.
 */
// The package does not export its browser bundle, hence the path into node_modules. Embedded as a file (a path
// into the binary), read only when asked for: 4 MB of script parsed at every start would slow every command.
import scalarBundle from "../../node_modules/@scalar/api-reference/dist/browser/standalone.js" with { type: "file" };

/** The policy of the page and its scripts (see above). */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** What every answer of /docs carries besides its type and caching. */
export const DOCS_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "Content-Security-Policy": DOCS_CSP,
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "Cross-Origin-Opener-Policy": "same-origin",
});

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Surfcast API reference</title>
<link rel="icon" href="data:,">
</head>
<body>
<div id="app"></div>
<script src="/docs/init.js"></script>
<script src="/docs/scalar.js"></script>
</body>
</html>`;

/**
 * Starts the reference: a file, not an inline script, so script-src stays 'self'. It runs before the bundle: zod
 * (inside it) probes for eval with `Function("")` unless its global config says jitless, and that probe, although
 * caught, is a CSP violation reported to the console. The reference starts once the bundle has run.
 */
const INIT = `globalThis.__zod_globalConfig = Object.assign(globalThis.__zod_globalConfig || {}, { jitless: true });
addEventListener("DOMContentLoaded", function () {
  Scalar.createApiReference("#app", { url: "/openapi.json", withDefaultFonts: false, hideClientButton: true, showDeveloperTools: "never", telemetry: false, agent: { disabled: true }, mcp: { disabled: true } });
});
`;

const CACHE = "public, max-age=3600";
const HTML = { ...DOCS_HEADERS, "Content-Type": "text/html; charset=utf-8", "Cache-Control": CACHE };
const SCRIPT = { ...DOCS_HEADERS, "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": CACHE };

export function docsPage(): Response {
  return new Response(PAGE, { headers: HTML });
}

export function docsInit(): Response {
  return new Response(INIT, { headers: SCRIPT });
}

export function docsBundle(): Response {
  return new Response(Bun.file(scalarBundle), { headers: SCRIPT });
}
