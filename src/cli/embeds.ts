/** `surfcast embeds …` — forecast pictures for a shop's site and screen (docs/embeds.md): create, list, revoke. */
import type { App } from "../app";
import { UserError } from "../core/errors";
import type { EmbedView } from "../embed/service";
import { EMBED_LIMITS, MAX_EMBEDS_MADE, PLAN_NAMES } from "../access/plans";
import { EMBED_LANGS } from "../embed/lang";
import { noExtraPositionals, parse, requirePositional } from "./args";

/** The plans' embed limits in one line each, from plans.ts (so the help never drifts from the rules). */
const PLAN_LINES = PLAN_NAMES.map((p) => {
  const l = EMBED_LIMITS[p];
  return `  ${p}: ${l.activeEmbeds} active, ${l.viewMinutesPerDay >= 1440 ? "every minute of the day" : `${l.viewMinutesPerDay} view-minutes a day`}`;
}).join("\n");

export const EMBEDS_HELP = `Usage:
  surfcast embeds create KEY_ID --spots ID,ID,… [--origin URL]… [--units metric|imperial] [--theme light|dark] [--lang ${EMBED_LANGS.join("|")}] [--json]
  surfcast embeds list EMAIL [--json]
  surfcast embeds revoke EMBED_ID

An embed is a public page (/embed/ID) showing 1 to 12 spots' forecasts as pictures, for a shop's web page
(in an <iframe>) or its TV (add ?mode=screen). The key itself never appears in the page. Views never use the
key's API quota or burst: each embed has its own allowance, counted once a minute (the first view of a UTC
minute is one view-minute, shown as "embed" in the key's usage; later views that minute are not counted).
Per account and plan, embeds active at once and each one's view-minutes a day:
${PLAN_LINES}
and at most ${MAX_EMBEDS_MADE} embeds made in all (revoked ones count too).
--origin (repeatable, at most 10) names a site allowed to frame it: http(s)://host[:port] only, like
https://shop.example (no path, wildcard, user, query, IPv6 address, spaces, commas or semicolons); without one,
only pages of this server may. The URL is printed on the last line.`;

function line(e: EmbedView): string {
  const status = e.revokedAt ? `revoked ${e.revokedAt}` : "active";
  return `${e.id}  key ${e.keyId}  ${e.spots.join(",")}  ${e.units}/${e.theme}/${e.lang}  origins ${e.origins.join(" ") || "(this server)"}  created ${e.createdAt}  ${status}`;
}

export async function runEmbeds(app: App, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parse(
    rest,
    { spots: { type: "string" }, origin: { type: "string", multiple: true }, units: { type: "string" }, theme: { type: "string" }, lang: { type: "string" }, json: { type: "boolean" } },
    EMBEDS_HELP,
  );
  if (values.help || sub === undefined || sub === "help") {
    console.log(EMBEDS_HELP);
    return;
  }
  switch (sub) {
    case "create": {
      noExtraPositionals(positionals, 1, EMBEDS_HELP);
      const keyId = requirePositional(positionals, 0, "KEY_ID", EMBEDS_HELP);
      if (values.spots === undefined) throw new UserError("--spots is required: 1 to 12 spot ids, comma-separated");
      const embed = await app.embeds.create(keyId, { spots: values.spots.split(","), origins: values.origin, units: values.units, theme: values.theme, lang: values.lang });
      if (values.json) console.log(JSON.stringify(embed));
      else {
        console.log(`created embed ${embed.id} of key ${embed.keyId}: ${embed.spots.join(", ")} (${embed.units}, ${embed.theme}, ${embed.lang})`);
        console.log(`framing allowed from: ${embed.origins.join(" ") || "this server only"}; TV layout: add ?mode=screen`);
        console.log(embed.url);
      }
      return;
    }
    case "list": {
      noExtraPositionals(positionals, 1, EMBEDS_HELP);
      const embeds = await app.embeds.list(requirePositional(positionals, 0, "EMAIL", EMBEDS_HELP));
      if (values.json) console.log(JSON.stringify(embeds, null, 2));
      else if (embeds.length === 0) console.log("no embeds");
      else for (const e of embeds) console.log(`${line(e)}\n  ${e.url}`);
      return;
    }
    case "revoke": {
      noExtraPositionals(positionals, 1, EMBEDS_HELP);
      const embed = await app.embeds.revoke(requirePositional(positionals, 0, "EMBED_ID", EMBEDS_HELP));
      console.log(`revoked embed ${embed.id} of key ${embed.keyId}; its page answers 404 within a second`);
      return;
    }
    default:
      throw new UserError(`unknown command "embeds ${sub}"\n\n${EMBEDS_HELP}`);
  }
}
