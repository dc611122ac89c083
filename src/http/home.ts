/**
 * `GET /`: where to go from the server's bare address. A browser gets a page of links (the API reference, the
 * developer console); a client gets the same as JSON, with the OpenAPI document first.
 */
const LINKS = { openapi: "/openapi.json", docs: "/docs", console: "/console", health: "/healthz" };

const HEADERS = {
  "Content-Security-Policy": "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "X-Frame-Options": "DENY",
  "Referrer-Policy": "no-referrer",
  "Cache-Control": "public, max-age=3600",
  Vary: "Accept",
};

function page(console: boolean): string {
  const item = (href: string, text: string) => `<li><a href="${href}">${text}</a></li>`;
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Surfcast</title><link rel="icon" href="data:,"></head>
<body>
<h1>Surfcast</h1>
<p>A surf spot, forecast and tide API. Requests to <code>/v1</code> and <code>/mcp</code> need an API key.</p>
<ul>
${item(LINKS.docs, "API reference")}
${console ? item(LINKS.console, "Developer console: your keys and usage") : ""}
${item(LINKS.openapi, "OpenAPI document (for clients and code generators)")}
</ul>
</body>
</html>`;
}

export function homeResponse(req: Request, console: boolean): Response {
  const wantsHtml = (req.headers.get("accept") ?? "").includes("text/html");
  if (wantsHtml) return new Response(page(console), { headers: { ...HEADERS, "Content-Type": "text/html; charset=utf-8" } });
  const links = console ? LINKS : { ...LINKS, console: undefined };
  return new Response(JSON.stringify({ name: "Surfcast", ...links }), { headers: { ...HEADERS, "Content-Type": "application/json; charset=utf-8" } });
}
