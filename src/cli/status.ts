/** `surfcast status` — how the data directory is doing (the same facts as GET /healthz?verbose=1). */
import type { App } from "../app";
import { formatStatus, operationalStatus } from "../ops/status";
import { noExtraPositionals, parse } from "./args";

export const STATUS_HELP = `Usage: surfcast status [--json]

Shows the age of the oldest and newest stored forecast, the last refresh's outcome and time, the next
scheduled refresh (and a pending retry of missed spots), the refresh scope (all spots, or the spots asked
for in the last 7 days and how many), the end of the stored tide window and the
database size. Works while the server runs; GET /healthz?verbose=1 answers the same as JSON.`;

export async function runStatus(app: App, argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv, { json: { type: "boolean" } }, STATUS_HELP);
  noExtraPositionals(positionals, 0, STATUS_HELP);
  const status = await operationalStatus(app);
  console.log(values.json ? JSON.stringify(status, null, 2) : formatStatus(status));
}
