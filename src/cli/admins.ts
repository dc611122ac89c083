/** `surfcast admins create EMAIL` — an operator sign-in for the console's operator pages. */
import type { App } from "../app";
import { UserError } from "../core/errors";
import { ConsoleService } from "../console/service";
import { printInvitation } from "./accounts";
import { noExtraPositionals, parse, requirePositional } from "./args";

export const ADMINS_HELP = `Usage:
  surfcast admins create EMAIL [--json]

Marks the account EMAIL as an operator of this server (creating it on the early-access plan when new) and
prints a one-time console link (valid 7 days) where its owner sets a password. Operators see every account
in the console: invite, change plans and limits, disable and enable, revoke any key.`;

export async function runAdmins(app: App, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parse(rest, { json: { type: "boolean" } }, ADMINS_HELP);
  if (values.help || sub === undefined || sub === "help") {
    console.log(ADMINS_HELP);
    return;
  }
  if (sub !== "create") throw new UserError(`unknown command "admins ${sub}"\n\n${ADMINS_HELP}`);
  noExtraPositionals(positionals, 1, ADMINS_HELP);
  const email = requirePositional(positionals, 0, "EMAIL", ADMINS_HELP);
  const service = new ConsoleService(app);
  const existing = await service.findAccount(email);
  const result = await service.invite({ email, plan: existing ? undefined : "early-access", admin: true });
  await printInvitation(app, result, values.json === true);
}
