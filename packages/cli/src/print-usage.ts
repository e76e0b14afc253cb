import { writeFile } from 'node:fs/promises';
import type { UsageQuery, UsageRow } from '@petstore/core';
import { byLineage, formatTotals, formatUsage, keysOfLineage, lineageOf, usageHtml, usageTotals, type ReportKey } from './usage-report.js';
import type { UsageSelection } from './usage-selection.js';

type Out = { write(text: string): unknown };

/** Where a report reads from: the keys (for lineages and labels) and the ledger. */
export interface UsageSource {
  list(): Promise<readonly ReportKey[]>;
  usage(query: UsageQuery): Promise<UsageRow[]>;
}

const byDay = (a: UsageRow, b: UsageRow) =>
  a.day.localeCompare(b.day) || a.plan.localeCompare(b.plan) || a.operationId.localeCompare(b.operationId);

/**
 * Runs `usage`, for both key tools: the ledger's rows asked for, by key lineage with the first key's label, printed on
 * `out` as a table, CSV or JSON (per day and operation, or `totals` per key and plan over the period), and written as a
 * self-contained page with `html`. With `keyId`, the rows of every key of its lineage. Answers the exit code.
 * @example await printUsage({ list: () => keys.list(), usage: (query) => store.usage(query) }, usageSelection({ format: 'csv' }), process)
 */
export async function printUsage(source: UsageSource, selection: UsageSelection, io: { out: Out; err: Out }): Promise<number> {
  const query = { from: selection.from, to: selection.to, plan: selection.plan };
  const keys = await source.list();
  const rows =
    selection.keyId === undefined
      ? await source.usage(query)
      : (await Promise.all(keysOfLineage(keys, lineageOf(keys, selection.keyId)).map((keyId) => source.usage({ ...query, keyId })))).flat().sort(byDay);
  const lines = byLineage(rows, keys);
  if (selection.html !== undefined) {
    await writeFile(selection.html, usageHtml(lines, { from: selection.from, to: selection.to }));
    io.err.write(`Wrote ${selection.html} (${lines.length} lines; opens offline).\n`);
  }
  io.out.write(selection.totals ? formatTotals(usageTotals(rows, keys, selection), selection.format) : formatUsage(lines, selection.format));
  return 0;
}
