import { PLAN_NAMES, type PlanName } from '@petstore/core/input-rules';

/** The ways `usage` prints the ledger (the report's own list, kept here so the command line loads no report). */
export const USAGE_FORMATS = ['table', 'csv', 'json'] as const;
export type UsageFormat = (typeof USAGE_FORMATS)[number];

/** What `usage` was asked for, every value checked: the same for `petstore usage` and `npx @petstore/cli usage`. */
export interface UsageSelection {
  /** First and last UTC day, `YYYY-MM-DD`, both included. */
  from: string | undefined;
  to: string | undefined;
  /** A key: its lineage's rows (the keys it replaced and that replaced it). */
  keyId: number | undefined;
  plan: PlanName | undefined;
  format: UsageFormat;
  /** One line per key lineage (or principal) and plan over the period, instead of one per day and operation. */
  totals: boolean;
  /** A file to write the self-contained page to. */
  html: string | undefined;
}

/** The options of `usage` as a command line gives them. */
export interface UsageValues {
  from?: string | undefined;
  to?: string | undefined;
  key?: string | undefined;
  plan?: string | undefined;
  format?: string | undefined;
  totals?: boolean | undefined;
  html?: string | undefined;
}

/** The options of `usage`, for a tool's help: name, value (none for a flag) and text. */
export const USAGE_OPTIONS: readonly (readonly [name: string, value: string | undefined, text: string])[] = [
  ['from', 'DAY', 'first UTC day (YYYY-MM-DD), included'],
  ['to', 'DAY', 'last UTC day (YYYY-MM-DD), included'],
  ['key', 'ID', "only this key's lineage (the keys it replaced and that replaced it)"],
  ['plan', 'PLAN', `only this plan: ${PLAN_NAMES.join(', ')}`],
  ['format', 'FORMAT', 'table (the default), csv or json, on stdout'],
  ['totals', undefined, 'one line per key and plan over the period, instead of per day and operation'],
  ['html', 'FILE', 'also write one self-contained page with charts (opens offline)'],
];

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A UTC day written YYYY-MM-DD that exists (2026-02-30 does not), or undefined when not given. */
function utcDay(name: string, text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  if (!DAY.test(text) || new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) !== text) {
    throw new RangeError(`--${name} must be a UTC day written YYYY-MM-DD, such as 2026-11-01, not "${text}".`);
  }
  return text;
}

/**
 * Checks the options of `usage`; throws a RangeError saying what is wrong, which each tool reports as its own usage
 * error (exit 2).
 * @example usageSelection({ from: '2026-11-01', format: 'csv', totals: true })
 */
export function usageSelection(values: UsageValues): UsageSelection {
  const from = utcDay('from', values.from);
  const to = utcDay('to', values.to);
  if (from !== undefined && to !== undefined && from > to) throw new RangeError(`--from ${from} is after --to ${to}.`);
  const { plan, key, html } = values;
  if (plan !== undefined && !(PLAN_NAMES as readonly string[]).includes(plan)) {
    throw new RangeError(`--plan must be one of ${PLAN_NAMES.join(', ')}, not "${plan}".`);
  }
  const format = values.format ?? 'table';
  if (!(USAGE_FORMATS as readonly string[]).includes(format)) throw new RangeError(`--format must be table, csv or json, not "${format}".`);
  if (key !== undefined && (!/^[1-9][0-9]{0,15}$/.test(key) || !Number.isSafeInteger(Number(key)))) {
    throw new RangeError(`Give the numeric ID of a key (see "keys list") to --key, not "${key}".`);
  }
  if (html === '') throw new RangeError('--html needs the file to write.');
  return {
    from,
    to,
    keyId: key === undefined ? undefined : Number(key),
    plan: plan as PlanName | undefined,
    format: format as UsageFormat,
    totals: values.totals === true,
    html,
  };
}
