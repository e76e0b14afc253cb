import { writeFile } from 'node:fs/promises';
import type { Command } from './cli-commands.js';
import type { CliIo } from './cli-io.js';
import { openKeys } from './cli-keys.js';
import type { Config } from './config.js';
import { formatUsage, usageHtml } from './usage-report.js';

/**
 * Runs `petstore usage`: the ledger's rows asked for, with each key's label, printed as a table, CSV or JSON, and
 * written as a self-contained page with `--html`. Through the running service on an embedded folder, else straight
 * from the database, as the key commands are.
 * @example await runUsageCommand({ name: 'usage', format: 'csv', … }, config, io)
 */
export async function runUsageCommand(command: Extract<Command, { name: 'usage' }>, config: Config, io: CliIo): Promise<number> {
  const { keys, close } = await openKeys(config, io);
  try {
    const [rows, records] = await Promise.all([
      keys.usage({ from: command.from, to: command.to, keyId: command.keyId, plan: command.plan }),
      keys.list(),
    ]);
    const labels = new Map(records.map((record) => [record.id, record.label]));
    const labelled = rows.map((row) => (row.keyId === undefined ? row : { ...row, label: labels.get(row.keyId) ?? null }));
    if (command.html !== undefined) {
      await writeFile(command.html, usageHtml(labelled, { from: command.from, to: command.to }));
      io.err.write(`petstore: wrote ${command.html} (${labelled.length} rows; opens offline).\n`);
    }
    io.out.write(formatUsage(labelled, command.format));
    return 0;
  } finally {
    await close();
  }
}
