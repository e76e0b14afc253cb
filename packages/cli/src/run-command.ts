import type { ApiKeyRecord } from '@petstore/core';
import { shownJson, shownText } from '@petstore/core/input-rules';
import { openKeys } from './open-keys.js';
import type { Command } from './parse-command.js';

type Out = { write(text: string): unknown };
const time = (d: Date | null | undefined) => (d ? d.toISOString().replace(/\.\d{3}Z$/, 'Z') : '-');

function table(records: readonly ApiKeyRecord[]): string {
  if (records.length === 0) return 'No keys.\n';
  const rows = records.map((r) => ({
    id: String(r.id),
    label: r.label === null ? '-' : shownText(r.label),
    plan: r.plan,
    'per minute': String(r.limits.perMinute),
    'per day': String(r.limits.perDay),
    created: time(r.createdAt),
    'last used': time(r.lastUsedAt),
    revoked: time(r.revokedAt),
    expires: time(r.expiresAt),
    'replaced by': r.replacedBy ? String(r.replacedBy) : '-',
  }));
  const columns = Object.keys(rows[0]!) as (keyof (typeof rows)[number])[];
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => r[c].length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => r[c])))].join('\n') + '\n';
}

const ROLL_REFUSED = {
  not_found: (id: number) => `No key ${id}.`,
  revoked: (id: number) => `Key ${id} is revoked: create a new key instead.`,
  expired: (id: number) => `Key ${id} has expired: create a new key instead.`,
  already_rolled: (id: number) => `Key ${id} was already rolled: roll the key that replaced it instead.`,
} as const;

/**
 * Runs a parsed command on its target (one connection; or the admin channel of the service running on the data
 * folder), writing what it prints to `out`; answers the exit code (1 when the key named does not exist, or cannot
 * take the change).
 * @example await runCommand(parseCommand(['keys', 'list'], process.env), process.stdout, process.stderr)
 */
export async function runCommand(command: Exclude<Command, { name: 'help' | 'version' }>, out: Out, err: Out): Promise<number> {
  const { keys, usage, webhooks, close } = await openKeys(command, err);
  try {
    switch (command.name) {
      case 'webhooks list':
      case 'webhooks deliveries':
      case 'webhooks redeliver': {
        const { printWebhooks } = await import('./print-webhooks.js');
        return await printWebhooks({ webhooks, keys }, command, { out, err }, (message) => {
          err.write(`${message}\n`);
          return 1;
        });
      }
      case 'usage': {
        // The report's module (and chart.js, for a page) loads only for this command.
        const { printUsage } = await import('./print-usage.js');
        return await printUsage({ list: () => keys.list(), usage }, command, { out, err });
      }
      case 'create': {
        const { key, record } = await keys.create({
          plan: command.plan,
          label: command.label ?? null,
          ...(command.limits ? { limits: command.limits } : {}),
          ...(command.expiresAt ? { expiresAt: command.expiresAt } : {}),
        });
        out.write(`${key}\n`);
        const until = record.expiresAt ? `, until ${time(record.expiresAt)}` : '';
        err.write(`Key ${record.id} (${record.plan}${until}) created. It is shown only this once.\n`);
        return 0;
      }
      case 'roll': {
        const rolled = await keys.roll(command.id, { graceMs: command.graceMs, ...(command.expiresAt ? { expiresAt: command.expiresAt } : {}) });
        if (typeof rolled === 'string') {
          err.write(`${ROLL_REFUSED[rolled](command.id)}\n`);
          return 1;
        }
        out.write(`${rolled.key}\n`);
        const until = rolled.record.expiresAt ? `, until ${time(rolled.record.expiresAt)}` : '';
        err.write(
          `Key ${rolled.record.id} (${rolled.record.plan}${until}) replaces key ${command.id}, which works until ${time(rolled.previous.expiresAt)}. ` +
            'The new key is shown only this once.\n',
        );
        return 0;
      }
      case 'list': {
        const records = await keys.list();
        out.write(command.json ? `${shownJson(JSON.stringify(records))}\n` : table(records));
        return 0;
      }
      case 'revoke':
        if (await keys.revoke(command.id)) {
          out.write(`Key ${command.id} revoked.\n`);
          return 0;
        }
        err.write(`No key ${command.id}.\n`);
        return 1;
      case 'set-limits': {
        const result = await keys.setLimits(command.id, command.limits);
        if (result === 'updated') {
          out.write(`Key ${command.id}: ${command.limits.perMinute} per minute, ${command.limits.perDay} per day.\n`);
          return 0;
        }
        err.write(result === 'not_found' ? `No key ${command.id}.\n` : `Key ${command.id} is not an enterprise key: its plan sets its limits.\n`);
        return 1;
      }
    }
  } finally {
    await close();
  }
}
