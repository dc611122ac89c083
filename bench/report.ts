/** Results as sections of Markdown: printed to the console and written to bench/RESULTS.md. */
import { join } from "node:path";

export interface Section {
  title: string;
  intro?: string;
  header?: string[];
  rows?: string[][];
  notes?: string[];
}

export function notMeasured(title: string, reason: string): Section {
  return { title, notes: [`not measured: ${reason}`] };
}

export function renderSection(s: Section): string {
  const lines = [`## ${s.title}`, ""];
  if (s.intro) lines.push(s.intro, "");
  if (s.header && s.rows && s.rows.length > 0) {
    lines.push(`| ${s.header.join(" | ")} |`, `|${s.header.map(() => "---").join("|")}|`);
    for (const row of s.rows) lines.push(`| ${row.join(" | ")} |`);
    lines.push("");
  }
  for (const note of s.notes ?? []) lines.push(`- ${note}`);
  if (s.notes?.length) lines.push("");
  return lines.join("\n");
}

export const fmt = {
  int: (n: number) => (Number.isFinite(n) ? Math.round(n).toLocaleString("en-US") : "—"),
  /** Megabytes against a target: one decimal, so that a figure just under it does not read as equal. */
  mb: (n: number) => (Number.isFinite(n) ? n.toFixed(1) : "—"),
  ms: (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 0) : "—"),
  us: (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 2 : 1) : "—"),
  ratio: (n: number) => (Number.isFinite(n) ? `${n.toFixed(2)}×` : "—"),
  pct: (n: number) => (Number.isFinite(n) ? `${(n * 100).toFixed(1)}%` : "—"),
  verdict: (ok: boolean) => (ok ? "met" : "**MISSED**"),
};

/** Replaces (or appends) a section in bench/RESULTS.md, leaving the other sections as they are. */
export async function writeSectionToResults(section: Section): Promise<void> {
  const path = join(import.meta.dir, "RESULTS.md");
  const current = await Bun.file(path).text();
  const rendered = renderSection(section);
  const start = current.indexOf(`## ${section.title}\n`);
  let next: string;
  if (start === -1) next = current.trimEnd() + "\n\n" + rendered;
  else {
    const end = current.indexOf("\n## ", start + 3);
    next = current.slice(0, start) + rendered + (end === -1 ? "" : current.slice(end + 1));
  }
  await Bun.write(path, next.trimEnd() + "\n");
}
