/**
 * GET /docs: a browsable API reference rendered from /openapi.json by Scalar (@scalar/api-reference, chosen for
 * its single self-contained browser bundle), embedded in the binary and served from here — no CDN, no fonts
 * fetched from elsewhere (system fonts), so it works offline and behind strict firewalls.
 */
// The package does not export its browser bundle, hence the path into node_modules. Embedded as a file (a path
// into the binary), read only when asked for: 4 MB of script parsed at every start would slow every command.
import scalarBundle from "../../node_modules/@scalar/api-reference/dist/browser/standalone.js" with { type: "file" };

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
<script src="/docs/scalar.js"></script>
<script>
Scalar.createApiReference("#app", { url: "/openapi.json", withDefaultFonts: false, hideClientButton: true, showDeveloperTools: "never", telemetry: false, agent: { disabled: true }, mcp: { disabled: true } });
</script>
</body>
</html>`;

const CACHE = "public, max-age=3600";

export function docsPage(): Response {
  return new Response(PAGE, { headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": CACHE } });
}

export function docsBundle(): Response {
  return new Response(Bun.file(scalarBundle), { headers: { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": CACHE } });
}
