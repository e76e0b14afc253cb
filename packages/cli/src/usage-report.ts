import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ApiKeyRecord, UsageRow } from '@petstore/core';
import { shownJson, shownText } from '@petstore/core/input-rules';
import type { UsageFormat } from './usage-selection.js';

/** What a report needs of a key: its id, its label, and the first key of its rotation (`quotaKeyId`). */
export type ReportKey = Pick<ApiKeyRecord, 'id' | 'label' | 'quotaKeyId'>;

/** The counts a line of a report adds up. */
const COUNTS = ['served', 'unmetered', 'rateLimited', 'banned', 'clientErrors', 'serverErrors'] as const;
type Counts = Record<(typeof COUNTS)[number], number>;

/**
 * One line of the daily report: the rows of one key lineage (a key and the keys that replaced it in rotations, under
 * the first one's id, `keyId`, with every id whose rows it adds, `keyIds`), or of one principal, on one UTC day, plan
 * and operation.
 */
export interface UsageLine extends Counts {
  day: string;
  /** The first key of the lineage: the one the others replaced. */
  keyId?: number;
  /** The ids of the lineage's keys whose rows this line adds up, ascending. */
  keyIds?: number[];
  principalId?: string;
  /** The lineage's label (a rotation keeps it): the first key's. */
  label?: string | null;
  plan: string;
  operationId: string;
}

/** One line of `--totals`: a key lineage's (or principal's) requests of one plan over the whole period asked. */
export interface UsageTotal extends Counts {
  /** The period's first and last UTC days: those asked for, else the first and last found. */
  from: string;
  to: string;
  keyId?: number;
  keyIds?: number[];
  principalId?: string;
  label?: string | null;
  plan: string;
}

/** The first key of `id`'s lineage (its rotation's first key), from the keys' records; `id` itself when unknown. */
export const lineageOf = (keys: readonly ReportKey[], id: number): number => keys.find((key) => key.id === id)?.quotaKeyId ?? id;

/** Every key of the lineage that begins with `first`, ascending. */
export const keysOfLineage = (keys: readonly ReportKey[], first: number): number[] =>
  [...new Set([first, ...keys.filter((key) => (key.quotaKeyId ?? key.id) === first).map((key) => key.id)])].sort((a, b) => a - b);

const zero = (): Counts => ({ served: 0, unmetered: 0, rateLimited: 0, banned: 0, clientErrors: 0, serverErrors: 0 });
const add = (into: Counts, from: Counts) => {
  for (const count of COUNTS) into[count] += from[count];
};

/** Adds `row` to the line of `lines` named `name`, or makes that line with `start`, keeping the first order seen. */
function addTo<L extends Counts & { keyIds?: number[] }>(lines: Map<string, L>, name: string, row: UsageRow, start: () => L) {
  let line = lines.get(name);
  if (!line) lines.set(name, (line = start()));
  add(line, row);
  if (row.keyId !== undefined && line.keyIds && !line.keyIds.includes(row.keyId)) {
    line.keyIds.push(row.keyId);
    line.keyIds.sort((a, b) => a - b);
  }
}

const whoOf = (row: UsageRow, keys: readonly ReportKey[]) => {
  if (row.keyId === undefined) return { name: `p:${row.principalId}`, who: { principalId: row.principalId! } };
  const first = lineageOf(keys, row.keyId);
  const label = keys.find((key) => key.id === first)?.label ?? keys.find((key) => key.id === row.keyId)?.label ?? null;
  return { name: `k:${first}`, who: { keyId: first, keyIds: [] as number[], label } };
};

/**
 * The ledger's rows by key lineage: a rolled key's rows and its successors' under the first key's id, with the ids
 * they came from, one line per day, lineage (or principal), plan and operation, in the ledger's order.
 * @example byLineage(await store.usage({ from: '2026-11-01' }), await store.apiKeys.list())
 */
export function byLineage(rows: readonly UsageRow[], keys: readonly ReportKey[]): UsageLine[] {
  const lines = new Map<string, UsageLine>();
  for (const row of rows) {
    const { name, who } = whoOf(row, keys);
    addTo(lines, `${row.day}\u0000${name}\u0000${row.plan}\u0000${row.operationId}`, row, () => ({
      day: row.day,
      ...who,
      plan: row.plan,
      operationId: row.operationId,
      ...zero(),
    }));
  }
  return [...lines.values()];
}

/**
 * The totals per key lineage (or principal) and plan over the period: `from` and `to` as asked, else the first and
 * last day of the rows.
 * @example usageTotals(rows, keys, { from: '2026-11-01', to: '2026-11-30' })
 */
export function usageTotals(rows: readonly UsageRow[], keys: readonly ReportKey[], period: { from?: string | undefined; to?: string | undefined } = {}): UsageTotal[] {
  const days = rows.map((row) => row.day).sort();
  const from = period.from ?? days[0] ?? '';
  const to = period.to ?? days.at(-1) ?? '';
  const totals = new Map<string, UsageTotal>();
  for (const row of rows) {
    const { name, who } = whoOf(row, keys);
    addTo(totals, `${name}\u0000${row.plan}`, row, () => ({ from, to, ...who, plan: row.plan, ...zero() }));
  }
  return [...totals.values()].sort((a, b) => (a.keyId ?? Infinity) - (b.keyId ?? Infinity) || String(a.principalId).localeCompare(String(b.principalId)));
}

type Column<L> = readonly [string, (line: L) => string];

const who = <L extends UsageLine | UsageTotal>(): Column<L>[] => [
  ['key_id', (line) => (line.keyId === undefined ? '' : String(line.keyId))],
  ['principal_id', (line) => line.principalId ?? ''],
  ['label', (line) => line.label ?? ''],
  ['plan', (line) => line.plan],
];
// `unmetered` and `key_ids` came after the others, so a reader of the first columns by position still reads them.
const counts = <L extends UsageLine | UsageTotal>(): Column<L>[] => [
  ['served', (line) => String(line.served)],
  ['rate_limited', (line) => String(line.rateLimited)],
  ['banned', (line) => String(line.banned)],
  ['client_errors', (line) => String(line.clientErrors)],
  ['server_errors', (line) => String(line.serverErrors)],
  ['unmetered', (line) => String(line.unmetered)],
  ['key_ids', (line) => line.keyIds?.join(' ') ?? ''],
];

const LINE_COLUMNS: readonly Column<UsageLine>[] = [['day', (line) => line.day], ...who<UsageLine>(), ['operation', (line) => line.operationId], ...counts<UsageLine>()];
const TOTAL_COLUMNS: readonly Column<UsageTotal>[] = [['from', (line) => line.from], ['to', (line) => line.to], ...who<UsageTotal>(), ...counts<UsageTotal>()];

/**
 * A CSV field (RFC 4180): quoted when it holds a comma, quote or line break; a text that a spreadsheet would run as a
 * formula (`=`, `+`, `-`, `@`, tab, carriage return first) gets a leading `'`, since labels are the operator's
 * customers' words.
 */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

function format<L>(lines: readonly L[], columns: readonly Column<L>[], as: UsageFormat, empty: string): string {
  // Labels may hold anything written before their rule (ESC, BEL, CR, LF): every form shows them escaped.
  if (as === 'json') return `${shownJson(JSON.stringify(lines, null, 2))}\n`;
  if (as === 'csv') {
    const rows = [columns.map(([name]) => name).join(','), ...lines.map((line) => columns.map(([, value]) => csvField(shownText(value(line)))).join(','))];
    return `${rows.join('\r\n')}\r\n`;
  }
  if (lines.length === 0) return empty;
  const cells = [columns.map(([name]) => name), ...lines.map((line) => columns.map(([, value]) => shownText(value(line)) || '-'))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return `${cells.map((row) => row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n')}\n`;
}

/**
 * The daily report as `usage` prints it: an aligned table, CSV with a header row (one line per day, key lineage, plan
 * and operation, CRLF line ends, for a billing system), or JSON.
 * @example process.stdout.write(formatUsage(byLineage(await store.usage({ from: '2026-11-01' }), keys), 'csv'))
 */
export function formatUsage(lines: readonly UsageLine[], as: UsageFormat): string {
  return format(lines, LINE_COLUMNS, as, 'No usage recorded for this selection.\n');
}

/**
 * The totals as `usage --totals` prints them: one line per key lineage (or principal) and plan over the period, as a
 * table, CSV (CRLF line ends) or JSON.
 * @example process.stdout.write(formatTotals(usageTotals(rows, keys, { from: '2026-11-01', to: '2026-11-30' }), 'csv'))
 */
export function formatTotals(totals: readonly UsageTotal[], as: UsageFormat): string {
  return format(totals, TOTAL_COLUMNS, as, 'No usage recorded for this selection.\n');
}

/** Chart.js's UMD bundle, read from its package (a dependency of this one), inlined into each page. */
function chartBundle(): string {
  const entry = createRequire(import.meta.url).resolve('chart.js');
  return readFileSync(join(dirname(entry), 'chart.umd.min.js'), 'utf8');
}

/** JSON that is safe inside a `<script>` element: no `<`, so no `</script>` can end it early. */
const scriptJson = (value: unknown) => JSON.stringify(value).replaceAll('<', '\\u003c');

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The charts' data: per day served and refused, per day per plan, and the top keys, from the lines. */
export function usageCharts(lines: readonly UsageLine[], top = 10) {
  const days = [...new Set(lines.map((line) => line.day))].sort();
  const plans = [...new Set(lines.map((line) => line.plan))].sort();
  const sum = (pick: (line: UsageLine) => boolean, value: (line: UsageLine) => number) =>
    lines.filter(pick).reduce((total, line) => total + value(line), 0);
  const refused = (line: UsageLine) => line.rateLimited + line.banned;
  const subjects = new Map<string, { name: string; served: number; refused: number }>();
  for (const line of lines) {
    const id = line.keyId !== undefined ? `key ${line.keyIds && line.keyIds.length > 1 ? line.keyIds.join('+') : line.keyId}` : `principal ${line.principalId}`;
    const name = line.label ? `${id} (${line.label})` : id;
    const entry = subjects.get(id) ?? { name, served: 0, refused: 0 };
    entry.served += line.served;
    entry.refused += refused(line);
    subjects.set(id, entry);
  }
  const topSubjects = [...subjects.values()].sort((a, b) => b.served + b.refused - (a.served + a.refused)).slice(0, top);
  return {
    days,
    perDay: {
      served: days.map((day) => sum((line) => line.day === day, (line) => line.served)),
      refused: days.map((day) => sum((line) => line.day === day, refused)),
      errors: days.map((day) => sum((line) => line.day === day, (line) => line.clientErrors + line.serverErrors)),
    },
    perPlan: plans.map((plan) => ({ plan, served: days.map((day) => sum((line) => line.day === day && line.plan === plan, (line) => line.served)) })),
    top: topSubjects,
  };
}

const PAGE_SCRIPT = `
const data = JSON.parse(document.getElementById('usage-data').textContent);
Chart.defaults.animation = false;
const colours = ['#2f6fb3', '#c0392b', '#7f8c8d', '#27ae60', '#8e44ad', '#d68910'];
new Chart(document.getElementById('per-day'), {
  type: 'bar',
  data: { labels: data.days, datasets: [
    { label: 'served', data: data.perDay.served, backgroundColor: colours[0] },
    { label: 'refused (429)', data: data.perDay.refused, backgroundColor: colours[1] },
    { label: 'other errors', data: data.perDay.errors, backgroundColor: colours[2] },
  ] },
  options: { scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true } } },
});
new Chart(document.getElementById('per-plan'), {
  type: 'line',
  data: { labels: data.days, datasets: data.perPlan.map((p, i) => ({ label: p.plan, data: p.served, borderColor: colours[(i + 3) % colours.length], backgroundColor: colours[(i + 3) % colours.length] })) },
  options: { scales: { y: { beginAtZero: true } } },
});
new Chart(document.getElementById('top-keys'), {
  type: 'bar',
  data: { labels: data.top.map((t) => t.name), datasets: [
    { label: 'served', data: data.top.map((t) => t.served), backgroundColor: colours[0] },
    { label: 'refused (429)', data: data.top.map((t) => t.refused), backgroundColor: colours[1] },
  ] },
  options: { indexAxis: 'y', scales: { x: { stacked: true, beginAtZero: true }, y: { stacked: true } } },
});
document.body.dataset.charts = String(Object.keys(Chart.instances).length);
`;

/**
 * One self-contained page of the ledger: requests served and refused per day, served per plan, and the top keys,
 * drawn by Chart.js (inlined), with the rows as a table. It loads nothing: a Content-Security-Policy allows no
 * request at all, so it opens offline and can be mailed.
 * @example writeFileSync('usage.html', usageHtml(lines, { from: '2026-11-01', to: '2026-11-30' }))
 */
export function usageHtml(lines: readonly UsageLine[], range: { from?: string | undefined; to?: string | undefined } = {}): string {
  const title = `Pet Store usage${range.from || range.to ? `, ${range.from ?? '…'} to ${range.to ?? '…'}` : ''}`;
  const table = formatUsage(lines, 'table');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; padding: 0 1rem; color: #222; }
.chart { position: relative; height: 320px; margin-bottom: 2rem; }
pre { overflow-x: auto; background: #f6f6f6; padding: 1rem; }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<p>${lines.length} lines of the usage ledger: per key lineage or principal, UTC day, plan and operation.</p>
<h2>Requests per day</h2>
<div class="chart"><canvas id="per-day" role="img" aria-label="Requests served and refused per day"></canvas></div>
<h2>Requests served per plan</h2>
<div class="chart"><canvas id="per-plan" role="img" aria-label="Requests served per plan and day"></canvas></div>
<h2>Top keys</h2>
<div class="chart"><canvas id="top-keys" role="img" aria-label="Keys with the most requests"></canvas></div>
<h2>The rows</h2>
<pre>${escapeHtml(table)}</pre>
<script id="usage-data" type="application/json">${scriptJson(usageCharts(lines))}</script>
<script>${chartBundle().replaceAll('</script', '<\\/script')}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
