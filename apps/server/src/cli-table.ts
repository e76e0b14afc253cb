import { textTable } from '@petstore/cli/text-table';

/** An instant as the key tool prints it: UTC, to the second (`2027-01-01T00:00:00Z`). */
export function isoSeconds(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** An instant, or `-` for none. */
export const date = (d: Date | null | undefined): string => (d ? isoSeconds(d) : '-');

/**
 * Rows as an aligned table under upper-case headings, each cell escaped (`textTable` of `@petstore/cli`, which both
 * key tools print with), or `none` when there are no rows.
 * @example table([{ id: '1', plan: 'pro' }]) // 'ID  PLAN\n1   pro\n'
 */
export const table = (rows: readonly Record<string, string>[], none = 'No keys.\n'): string => textTable(rows, none);
