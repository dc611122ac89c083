/** `surfcast accounts …` — create, disable, enable, list. */
import type { App } from "../app";
import { UserError } from "../core/errors";
import { PLAN_NAMES } from "../access/plans";
import { createAccount, listAccounts, setAccountDisabled, setAccountPlan, type AccountView, type CustomLimits } from "../access/accounts";
import { ConsoleService } from "../console/service";
import type { Invitation } from "../console/invitations";
import { intFlag, noExtraPositionals, parse, requirePositional } from "./args";

export const ACCOUNTS_HELP = `Usage:
  surfcast accounts create EMAIL --plan PLAN [--daily-limit N] [--minute-limit N] [--max-keys N]
  surfcast accounts invite EMAIL [--plan PLAN] [--daily-limit N] [--minute-limit N] [--max-keys N] [--json]
  surfcast accounts set-plan EMAIL --plan PLAN [--daily-limit N] [--minute-limit N] [--max-keys N]
  surfcast accounts disable EMAIL
  surfcast accounts enable EMAIL
  surfcast accounts list [--json]

Plans: ${PLAN_NAMES.join(", ")}. Custom limits override the plan's defaults (how the Scale plan's custom
terms are set). Disabling an account makes its keys answer 401 account_disabled within seconds and ends its
console sessions.

invite prints a one-time link to the developer console (valid 7 days): for a new account (--plan required)
the owner chooses a password there and creates their own keys; for an existing account it is a set-password
link (--plan then also moves the account to that plan). Links start with SURFCAST_PUBLIC_URL (default
http://localhost:PORT). When SURFCAST_SMTP_URL is set the link is e-mailed too.`;

/** Prints an invitation for the operator and e-mails it when SMTP is configured; shared by `admins create`. */
export async function printInvitation(app: App, result: { invitation: Invitation; mailProblem: string | null }, json: boolean): Promise<void> {
  const { invitation, mailProblem } = result;
  const emailed = app.config.smtpUrl ? mailProblem === null : false;
  if (json) {
    console.log(JSON.stringify({ account: invitation.account, created: invitation.created, kind: invitation.kind, url: invitation.url, expiresAt: invitation.expiresAt, emailed }));
  } else {
    const what = invitation.kind === "invitation" ? "invitation" : "set-password link";
    const who = `${invitation.account.email}${invitation.created ? ` (new ${invitation.account.plan} account)` : ""}`;
    console.log(`${what} for ${who}, valid until ${invitation.expiresAt}, works once:\n${invitation.url}`);
    if (emailed) console.log(`e-mailed to ${invitation.account.email}`);
  }
  if (app.config.smtpUrl && mailProblem !== null) console.error(`surfcast: could not e-mail the link (${mailProblem}); hand it over yourself`);
}

function limitsFrom(values: Record<string, unknown>): CustomLimits {
  return {
    dailyLimit: intFlag(values["daily-limit"], "--daily-limit"),
    minuteLimit: intFlag(values["minute-limit"], "--minute-limit"),
    maxKeys: intFlag(values["max-keys"], "--max-keys"),
  };
}

function row(a: AccountView): string {
  return `${a.email.padEnd(32)} ${a.plan.padEnd(13)} ${String(a.dailyLimit).padStart(9)}/day ${String(a.minuteLimit).padStart(6)}/min  keys ${a.activeKeys}/${a.maxKeys}  ${a.disabled ? "DISABLED" : "active"}`;
}

export async function runAccounts(app: App, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parse(rest, { plan: { type: "string" }, "daily-limit": { type: "string" }, "minute-limit": { type: "string" }, "max-keys": { type: "string" }, json: { type: "boolean" } }, ACCOUNTS_HELP);
  if (values.help || sub === undefined || sub === "help") {
    console.log(ACCOUNTS_HELP);
    return;
  }
  switch (sub) {
    case "create": {
      noExtraPositionals(positionals, 1, ACCOUNTS_HELP);
      const email = requirePositional(positionals, 0, "EMAIL", ACCOUNTS_HELP);
      if (!values.plan) throw new UserError(`--plan is required (one of: ${PLAN_NAMES.join(", ")})`);
      const account = await createAccount(app.stores.access, app.clock, email, values.plan, limitsFrom(values));
      console.log(values.json ? JSON.stringify(account) : `created account ${account.email} (${account.plan}: ${account.dailyLimit}/day, ${account.minuteLimit}/min, ${account.maxKeys} keys)`);
      return;
    }
    case "invite": {
      noExtraPositionals(positionals, 1, ACCOUNTS_HELP);
      const email = requirePositional(positionals, 0, "EMAIL", ACCOUNTS_HELP);
      const result = await new ConsoleService(app).invite({ email, plan: values.plan, limits: limitsFrom(values) });
      await printInvitation(app, result, values.json === true);
      return;
    }
    case "set-plan": {
      noExtraPositionals(positionals, 1, ACCOUNTS_HELP);
      const email = requirePositional(positionals, 0, "EMAIL", ACCOUNTS_HELP);
      if (!values.plan) throw new UserError(`--plan is required (one of: ${PLAN_NAMES.join(", ")})`);
      const account = await setAccountPlan(app.stores.access, email, values.plan, limitsFrom(values));
      console.log(values.json ? JSON.stringify(account) : `account ${account.email} is now on ${account.plan} (${account.dailyLimit}/day, ${account.minuteLimit}/min, ${account.maxKeys} keys)`);
      return;
    }
    case "disable":
    case "enable": {
      noExtraPositionals(positionals, 1, ACCOUNTS_HELP);
      const account = await setAccountDisabled(app.stores.access, requirePositional(positionals, 0, "EMAIL", ACCOUNTS_HELP), sub === "disable");
      console.log(`${sub}d account ${account.email}`);
      return;
    }
    case "list": {
      noExtraPositionals(positionals, 0, ACCOUNTS_HELP);
      const all = await listAccounts(app.stores.access);
      if (values.json) console.log(JSON.stringify(all, null, 2));
      else if (all.length === 0) console.log("no accounts yet — create one with: surfcast accounts create EMAIL --plan starter");
      else for (const a of all) console.log(row(a));
      return;
    }
    default:
      throw new UserError(`unknown command "accounts ${sub}"\n\n${ACCOUNTS_HELP}`);
  }
}
