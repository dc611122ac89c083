/** `surfcast accounts …` — create, disable, enable, list. */
import type { App } from "../app";
import { UserError } from "../core/errors";
import { PLAN_NAMES } from "../access/plans";
import { createAccount, listAccounts, setAccountDisabled, type AccountView } from "../access/accounts";
import { intFlag, noExtraPositionals, parse, requirePositional } from "./args";

export const ACCOUNTS_HELP = `Usage:
  surfcast accounts create EMAIL --plan PLAN [--daily-limit N] [--minute-limit N] [--max-keys N]
  surfcast accounts disable EMAIL
  surfcast accounts enable EMAIL
  surfcast accounts list [--json]

Plans: ${PLAN_NAMES.join(", ")}. Custom limits override the plan's defaults (how the Scale plan's custom
terms are set). Disabling an account makes its keys answer 401 account_disabled within seconds.`;

function row(a: AccountView): string {
  return `${a.email.padEnd(32)} ${a.plan.padEnd(13)} ${String(a.dailyLimit).padStart(9)}/day ${String(a.minuteLimit).padStart(6)}/min  keys ${a.activeKeys}/${a.maxKeys}  ${a.disabled ? "DISABLED" : "active"}`;
}

export function runAccounts(app: App, argv: string[]): void {
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
      const account = createAccount(app.db, app.clock, email, values.plan, {
        dailyLimit: intFlag(values["daily-limit"], "--daily-limit"),
        minuteLimit: intFlag(values["minute-limit"], "--minute-limit"),
        maxKeys: intFlag(values["max-keys"], "--max-keys"),
      });
      console.log(values.json ? JSON.stringify(account) : `created account ${account.email} (${account.plan}: ${account.dailyLimit}/day, ${account.minuteLimit}/min, ${account.maxKeys} keys)`);
      return;
    }
    case "disable":
    case "enable": {
      noExtraPositionals(positionals, 1, ACCOUNTS_HELP);
      const account = setAccountDisabled(app.db, requirePositional(positionals, 0, "EMAIL", ACCOUNTS_HELP), sub === "disable");
      console.log(`${sub}d account ${account.email}`);
      return;
    }
    case "list": {
      noExtraPositionals(positionals, 0, ACCOUNTS_HELP);
      const all = listAccounts(app.db);
      if (values.json) console.log(JSON.stringify(all, null, 2));
      else if (all.length === 0) console.log("no accounts yet — create one with: surfcast accounts create EMAIL --plan starter");
      else for (const a of all) console.log(row(a));
      return;
    }
    default:
      throw new UserError(`unknown command "accounts ${sub}"\n\n${ACCOUNTS_HELP}`);
  }
}
