/** `surfcast keys …` — create (the only time a key is shown), revoke, list. */
import type { App } from "../app";
import { UserError } from "../core/errors";
import { createKey, listKeys, revokeKey } from "../access/accounts";
import { escapeControls } from "../core/log";
import { noExtraPositionals, parse, requirePositional } from "./args";

export const KEYS_HELP = `Usage:
  surfcast keys create EMAIL --name NAME [--json]
  surfcast keys revoke KEY_ID
  surfcast keys list EMAIL [--json]

The key is printed once, at creation (plain: alone on the last line); only its SHA-256 hash is stored.
A name is one line of printable text (no control characters); list prints any stored before that rule escaped.
Keys are sent as "X-API-Key: <key>" or "Authorization: Bearer <key>". A revoked key answers 401 within seconds.`;

export async function runKeys(app: App, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parse(rest, { name: { type: "string" }, json: { type: "boolean" } }, KEYS_HELP);
  if (values.help || sub === undefined || sub === "help") {
    console.log(KEYS_HELP);
    return;
  }
  switch (sub) {
    case "create": {
      noExtraPositionals(positionals, 1, KEYS_HELP);
      const email = requirePositional(positionals, 0, "EMAIL", KEYS_HELP);
      if (values.name === undefined) throw new UserError("--name is required: a name that tells the key's purpose");
      const created = await createKey(app.stores.access, app.clock, email, values.name);
      if (values.json) console.log(JSON.stringify(created));
      else {
        console.log(`created key ${created.id} "${created.name}" for ${created.account} (${created.plan}). Store it now; it is not shown again:`);
        console.log(created.key);
      }
      return;
    }
    case "revoke": {
      noExtraPositionals(positionals, 1, KEYS_HELP);
      const key = await revokeKey(app.stores.access, app.clock, requirePositional(positionals, 0, "KEY_ID", KEYS_HELP));
      console.log(`revoked key ${key.id} "${escapeControls(key.name)}" of ${key.account}`);
      return;
    }
    case "list": {
      noExtraPositionals(positionals, 1, KEYS_HELP);
      const keys = await listKeys(app.stores.access, requirePositional(positionals, 0, "EMAIL", KEYS_HELP));
      if (values.json) console.log(JSON.stringify(keys, null, 2));
      else if (keys.length === 0) console.log("no keys");
      else for (const k of keys) console.log(`${k.id}  ${(k.prefix + "…").padEnd(16)} ${escapeControls(k.name).padEnd(24)} created ${k.createdAt}  ${k.revokedAt ? "revoked " + k.revokedAt : "active"}`);
      return;
    }
    default:
      throw new UserError(`unknown command "keys ${sub}"\n\n${KEYS_HELP}`);
  }
}
