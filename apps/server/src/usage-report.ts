import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { UsageRow } from '@petstore/core';
import { shownJson, shownText } from '@petstore/core/input-rules';

/** The ways `petstore usage` prints the ledger. */
export const USAGE_FORMATS = ['table', 'csv', 'json'] as const;
export type UsageFormat = (typeof USAGE_FORMATS)[number];

/** A ledger row with the key's label, as the reports show it. */
export type LabelledUsageRow = UsageRow & { label?: string | null };

const COLUMNS = [
  ['day', (row) => row.day],
  ['key_id', (row) => (row.keyId === undefined ? '' : String(row.keyId))],
  ['principal_id', (row) => row.principalId ?? ''],
  ['label', (row) => row.label ?? ''],
  ['plan', (row) => row.plan],
  ['operation', (row) => row.operationId],
  ['served', (row) => String(row.served)],
  ['rate_limited', (row) => String(row.rateLimited)],
  ['banned', (row) => String(row.banned)],
  ['client_errors', (row) => String(row.clientErrors)],
  ['server_errors', (row) => String(row.serverErrors)],
] as const satisfies readonly (readonly [string, (row: LabelledUsageRow) => string])[];

/**
 * A CSV field (RFC 4180): quoted when it holds a comma, quote or line break; a text that a spreadsheet would run as a
 * formula (`=`, `+`, `-`, `@`, tab, carriage return first) gets a leading `'`, since labels are the operator's
 * customers' words.
 */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/**
 * The ledger as `petstore usage` prints it: an aligned table, CSV with a header row (one line per day, subject, plan
 * and operation, CRLF line ends, for a billing system), or JSON.
 * @example process.stdout.write(formatUsage(await store.usage({ from: '2026-11-01' }), 'csv'))
 */
export function formatUsage(rows: readonly LabelledUsageRow[], format: UsageFormat): string {
  // Labels may hold anything written before their rule (ESC, BEL, CR, LF): every form shows them escaped.
  if (format === 'json') return `${shownJson(JSON.stringify(rows, null, 2))}\n`;
  if (format === 'csv') {
    const lines = [COLUMNS.map(([name]) => name).join(','), ...rows.map((row) => COLUMNS.map(([, value]) => csvField(shownText(value(row)))).join(','))];
    return `${lines.join('\r\n')}\r\n`;
  }
  if (rows.length === 0) return 'No usage recorded for this selection.\n';
  const cells = [COLUMNS.map(([name]) => name), ...rows.map((row) => COLUMNS.map(([, value]) => shownText(value(row)) || '-'))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((line) => line[i]!.length)));
  return `${cells.map((line) => line.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n')}\n`;
}

/** Chart.js's UMD bundle, read from its package (a dependency of this app), inlined into each page. */
function chartBundle(): string {
  const entry = createRequire(import.meta.url).resolve('chart.js');
  return readFileSync(join(dirname(entry), 'chart.umd.min.js'), 'utf8');
}

/** JSON that is safe inside a `<script>` element: no `<`, so no `</script>` can end it early. */
const scriptJson = (value: unknown) => JSON.stringify(value).replaceAll('<', '\\u003c');

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The charts' data: per day served and refused, per day per plan, and the top keys, from the rows. */
export function usageCharts(rows: readonly LabelledUsageRow[], top = 10) {
  const days = [...new Set(rows.map((row) => row.day))].sort();
  const plans = [...new Set(rows.map((row) => row.plan))].sort();
  const sum = (pick: (row: LabelledUsageRow) => boolean, value: (row: LabelledUsageRow) => number) =>
    rows.filter(pick).reduce((total, row) => total + value(row), 0);
  const refused = (row: LabelledUsageRow) => row.rateLimited + row.banned;
  const subjects = new Map<string, { name: string; served: number; refused: number }>();
  for (const row of rows) {
    const id = row.keyId !== undefined ? `key ${row.keyId}` : `principal ${row.principalId}`;
    const name = row.label ? `${id} (${row.label})` : id;
    const entry = subjects.get(id) ?? { name, served: 0, refused: 0 };
    entry.served += row.served;
    entry.refused += refused(row);
    subjects.set(id, entry);
  }
  const topSubjects = [...subjects.values()].sort((a, b) => b.served + b.refused - (a.served + a.refused)).slice(0, top);
  return {
    days,
    perDay: {
      served: days.map((day) => sum((row) => row.day === day, (row) => row.served)),
      refused: days.map((day) => sum((row) => row.day === day, refused)),
      errors: days.map((day) => sum((row) => row.day === day, (row) => row.clientErrors + row.serverErrors)),
    },
    perPlan: plans.map((plan) => ({ plan, served: days.map((day) => sum((row) => row.day === day && row.plan === plan, (row) => row.served)) })),
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
 * @example writeFileSync('usage.html', usageHtml(rows, { from: '2026-11-01', to: '2026-11-30' }))
 */
export function usageHtml(rows: readonly LabelledUsageRow[], range: { from?: string | undefined; to?: string | undefined } = {}): string {
  const title = `Pet Store usage${range.from || range.to ? `, ${range.from ?? '…'} to ${range.to ?? '…'}` : ''}`;
  const table = formatUsage(rows, 'table');
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
<p>${rows.length} rows of the usage ledger: per key or principal, UTC day, plan and operation.</p>
<h2>Requests per day</h2>
<div class="chart"><canvas id="per-day" role="img" aria-label="Requests served and refused per day"></canvas></div>
<h2>Requests served per plan</h2>
<div class="chart"><canvas id="per-plan" role="img" aria-label="Requests served per plan and day"></canvas></div>
<h2>Top keys</h2>
<div class="chart"><canvas id="top-keys" role="img" aria-label="Keys with the most requests"></canvas></div>
<h2>The rows</h2>
<pre>${escapeHtml(table)}</pre>
<script id="usage-data" type="application/json">${scriptJson(usageCharts(rows))}</script>
<script>${chartBundle().replaceAll('</script', '<\\/script')}</script>
<script>${PAGE_SCRIPT}</script>
</body>
</html>
`;
}
