/*
 * `@petstore/cli/usage`: the usage report of both key tools (`npx @petstore/cli usage` and the service's
 * `petstore usage`): its options, the lines by key lineage, the totals, the formats and the page.
 */
export { printUsage, type UsageSource } from './print-usage.js';
export {
  byLineage,
  formatTotals,
  formatUsage,
  keysOfLineage,
  lineageOf,
  usageCharts,
  usageHtml,
  usageTotals,
  type ReportKey,
  type UsageLine,
  type UsageTotal,
} from './usage-report.js';
export { USAGE_FORMATS, USAGE_OPTIONS, usageSelection, type UsageFormat, type UsageSelection, type UsageValues } from './usage-selection.js';
