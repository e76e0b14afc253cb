import { shownText } from '@petstore/core/input-rules';

/** An instant as the key tool prints it: UTC, to the second (`2027-01-01T00:00:00Z`). */
export function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** An instant, or `-` for none. */
export const date = (d: Date | null | undefined): string => (d ? isoSeconds(d) : '-');

/**
 * Rows as an aligned table under upper-case headings, each cell escaped as `shownText` does, or `none` when there
 * are no rows.
 * @example table([{ id: '1', plan: 'pro' }]) // 'ID  PLAN\n1   pro\n'
 */
export function table(rawRows: Record<string, string>[], none = 'No keys.\n'): string {
  if (!rawRows.length) return none;
  // Labels may hold anything written before their rule (ESC, BEL, CR, LF): every cell is shown escaped.
  const rows = rawRows.map((row) => Object.fromEntries(Object.entries(row).map(([column, cell]) => [column, shownText(cell)])));
  const columns = Object.keys(rows[0]!);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => r[c]!)))].join('\n') + '\n';
}
