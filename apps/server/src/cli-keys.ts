import type { ApiKeyRecord, DeprecatedUsage, OperationId, operations as Operations } from '@petstore/core';
import type { KeyAdmin } from '@petstore/cli/admin-channel';
import { shownJson } from '@petstore/core/input-rules';
import { UsageError, type Command } from './cli-commands.js';
import type { CliIo } from './cli-io.js';
import { reachService } from './cli-service.js';
import { date, isoSeconds, table } from './cli-table.js';
import type { Config } from './config.js';
import { release } from './release.js';

/** A command of `petstore keys`. */
export type KeyCommand = Extract<Command, { name: `keys ${string}` }>;

function row(record: ApiKeyRecord, usage: readonly DeprecatedUsage[]) {
  const own = usage.filter((u) => u.keyId === record.id);
  const last = own.reduce<Date | undefined>((latest, u) => (!latest || u.lastCalledAt > latest ? u.lastCalledAt : latest), undefined);
  return {
    id: String(record.id),
    label: record.label ?? '-',
    plan: record.plan,
    'per minute': String(record.limits.perMinute),
    'per day': String(record.limits.perDay),
    created: date(record.createdAt),
    'last used': date(record.lastUsedAt),
    revoked: date(record.revokedAt),
    expires: date(record.expiresAt),
    'replaced by': record.replacedBy ? String(record.replacedBy) : '-',
    'deprecated calls': String(own.reduce((sum, u) => sum + u.calls, 0)),
    'last deprecated call': date(last),
  };
}

/**
 * A key as `keys list --json` prints it: the record as the store (and `@petstore/cli`'s `keys list --json`) has it,
 * ids as numbers and times as ISO 8601, with its calls of deprecated operations: one shape with `usage --format json`.
 */
function keyJson(record: ApiKeyRecord, usage: readonly DeprecatedUsage[]) {
  const own = usage.filter((u) => u.keyId === record.id);
  const last = own.reduce<Date | null>((latest, u) => (!latest || u.lastCalledAt > latest ? u.lastCalledAt : latest), null);
  return {
    ...record,
    expiresAt: record.expiresAt ?? null,
    replacedBy: record.replacedBy ?? null,
    deprecatedCalls: own.reduce((sum, u) => sum + u.calls, 0),
    lastDeprecatedCallAt: last,
  };
}

/** The report of keys that still call deprecated operations, with each operation's sunset. */
function deprecatedRow(usage: DeprecatedUsage, operations: typeof Operations) {
  const deprecation = operations[usage.operationId as OperationId]?.deprecation;
  return {
    id: String(usage.keyId),
    label: usage.label ?? '-',
    operation: usage.operationId,
    calls: String(usage.calls),
    'last call': date(usage.lastCalledAt),
    sunset: date(deprecation?.sunset),
  };
}

/**
 * The key store: through the running service's admin channel when a service runs on the embedded folder (only one
 * process may open it), else straight from the database (PostgreSQL always; the embedded folder under its lock).
 */
export async function openKeys(config: Config, io: CliIo): Promise<{ keys: KeyAdmin; close(): Promise<void> }> {
  if (config.dataDirIsFolder) {
    const admin = await reachService(config, io);
    if (admin) return { keys: admin.keys, close: async () => {} };
  }
  // On an embedded folder, opening the store takes the folder's lock: refused while another process holds it.
  const { openPetStore } = await import('@petstore/embed');
  const service = await openPetStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 1,
    rateLimitStore: 'none',
    // A key tool sends no webhook deliveries: the service's instances do.
    webhooks: { deliver: false },
    release,
  });
  return {
    keys: { ...service.store.apiKeys, deprecatedUsage: () => service.store.deprecatedUsage(), usage: (query?: Parameters<KeyAdmin['usage']>[0]) => service.store.usage(query) } as KeyAdmin,
    close: () => service.close(),
  };
}

/**
 * Runs one `petstore keys` command; answers its exit code, or throws a {@link UsageError} for a key it cannot act on.
 * @example await runKeyCommand({ name: 'keys list', json: true }, config, io)
 */
export async function runKeyCommand(command: KeyCommand, config: Config, io: CliIo): Promise<number> {
  const { keys, close } = await openKeys(config, io);
  try {
    switch (command.name) {
      case 'keys create': {
        const { plan, label, limits, expiresAt } = command;
        const { key, record } = await keys.create({ plan, label, expiresAt, ...(limits ? { limits } : {}) });
        const until = expiresAt ? `, until ${isoSeconds(expiresAt)}` : '';
        io.err.write(`Created key ${record.id} (${record.plan}${until}). Store it now: it is not shown again.\n`);
        io.out.write(`${key}\n`);
        return 0;
      }
      case 'keys roll': {
        const { id, graceMs, expiresAt } = command;
        const rolled = await keys.roll(id, { graceMs, ...(expiresAt ? { expiresAt } : {}) });
        if (rolled === 'not_found') throw new UsageError(`No key with ID ${id}.`);
        if (rolled === 'revoked') throw new UsageError(`Key ${id} is revoked; create a new key instead.`);
        if (rolled === 'expired') throw new UsageError(`Key ${id} has expired; create a new key instead.`);
        if (rolled === 'already_rolled') throw new UsageError(`Key ${id} was already rolled; roll its replacement instead.`);
        const { record, previous } = rolled;
        io.err.write(
          `Rolled key ${id} into key ${record.id} (${record.plan}${record.expiresAt ? `, until ${isoSeconds(record.expiresAt)}` : ''}). ` +
            `Key ${id} works until ${isoSeconds(previous.expiresAt!)}. Store the new key now: it is not shown again.\n`,
        );
        io.out.write(`${rolled.key}\n`);
        return 0;
      }
      case 'keys list': {
        const [records, usage] = await Promise.all([keys.list(), keys.deprecatedUsage()]);
        if (command.json) io.out.write(`${shownJson(JSON.stringify(records.map((record) => keyJson(record, usage)), null, 2))}\n`);
        else io.out.write(table(records.map((record) => row(record, usage))));
        return 0;
      }
      case 'keys deprecated': {
        // The registry, for the sunsets: loaded by this command only (through the admin channel, no other needs the core).
        const [{ operations }, usage] = await Promise.all([import('@petstore/core'), keys.deprecatedUsage()]);
        const sunset = (u: DeprecatedUsage) => operations[u.operationId as OperationId]?.deprecation?.sunset ?? null;
        if (command.json) io.out.write(`${shownJson(JSON.stringify(usage.map((u) => ({ ...u, sunset: sunset(u) })), null, 2))}\n`);
        else io.out.write(usage.length ? table(usage.map((u) => deprecatedRow(u, operations))) : 'No key has called a deprecated operation.\n');
        return 0;
      }
      case 'keys revoke': {
        const { id } = command;
        if (!(await keys.revoke(id))) throw new UsageError(`No key with ID ${id}.`);
        io.out.write(`Revoked key ${id}.\n`);
        return 0;
      }
      case 'keys set-limits': {
        const { id, limits } = command;
        const result = await keys.setLimits(id, limits);
        if (result === 'not_found') throw new UsageError(`No key with ID ${id}.`);
        if (result === 'not_enterprise') throw new UsageError(`Key ${id} is not an enterprise key; its plan sets its limits.`);
        io.out.write(`Key ${id} now allows ${limits.perMinute} requests a minute and ${limits.perDay} a day.\n`);
        return 0;
      }
    }
  } finally {
    await close();
  }
}
