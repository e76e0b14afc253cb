import { shownText } from '@petstore/core/input-rules';

/**
 * Rows as an aligned table under upper-case headings, each cell escaped as `shownText` does (text stored by others
 * may hold ESC, BEL, CR or LF), or `none` when there are no rows.
 * @example textTable([{ id: '1', url: 'https://example.com/hooks' }], 'No webhook endpoints.\n')
 */
export function textTable(rawRows: readonly Record<string, string>[], none: string): string {
  if (!rawRows.length) return none;
  const rows = rawRows.map((row) => Object.fromEntries(Object.entries(row).map(([column, cell]) => [column, shownText(cell)])));
  const columns = Object.keys(rows[0]!);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => r[c]!)))].join('\n') + '\n';
}
