#!/usr/bin/env node
import { parseArgs } from 'node:util';
import {
  MAX_GRACE_MS,
  operations,
  PLAN_NAMES,
  systemClock,
  type ApiKeyRecord,
  type DeprecatedUsage,
  type OperationId,
  type PlanName,
} from '@petstore/core';
import { readFile, writeFile } from 'node:fs/promises';
import { openDatabase, openPetStore, restoreDataDir } from '@petstore/embed';
import { connectAdminChannel, type KeyAdmin } from './admin-channel.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import { parseDuration, parseInstant } from './duration.js';

const HELP = `Usage: petstore keys <command> [options]
       petstore backup FILE | petstore restore FILE

Manage the API keys of the Pet Store. Uses the database the service uses:
DATABASE_URL (PostgreSQL) or else the embedded database in PETSTORE_DATA_DIR,
through the running service when it runs on that folder, directly otherwise.

Commands:
  create --plan PLAN [--label TEXT]        Create a key and print it (shown only this once).
                                           PLAN: ${PLAN_NAMES.join(', ')}.
         [--per-minute N --per-day N]      Limits of an enterprise key.
         [--expires-in DURATION]           The key stops working after this long (30d, 12h, 1d12h; s m h d w),
         [--expires-at TIME]               or at this time (2027-01-01T00:00:00Z, or 2027-01-01 for 00:00 UTC).
  roll ID [--grace DURATION]               Replace a key: print a new key with the same label, plan, limits and
                                           expiry (shown only this once); the old key keeps working for the
                                           grace period (default 24h; 0 stops it at once).
          [--expires-in D | --expires-at T] Give the new key another expiry.
  list [--json]                            List keys: id, label, plan, limits, created, last used, revoked,
                                           expires, replaced by, and their calls of deprecated operations.
  deprecated [--json]                      Keys that still call deprecated operations: how often, when last,
                                           and when each operation is removed.
  revoke ID                                Revoke a key (effective within one second on every instance).
  set-limits ID --per-minute N --per-day N Set the limits of an enterprise key.

  backup FILE                              Write a consistent copy of the embedded database (gzipped tar),
                                           also while the service runs. On PostgreSQL use pg_dump.
  restore FILE                             Restore such a copy into an empty PETSTORE_DATA_DIR.

Options:
  -h, --help                               Show this help.
`;

class UsageError extends Error {}

function positiveInteger(name: string, value: string | undefined): number {
  if (value === undefined) throw new UsageError(`--${name} is required.`);
  if (!/^[1-9][0-9]{0,9}$/.test(value) || Number(value) > 2_147_483_647) {
    throw new UsageError(`--${name} must be a whole number from 1 to 2147483647, not "${value}".`);
  }
  return Number(value);
}

function keyId(value: string | undefined): number {
  if (value === undefined || !/^[1-9][0-9]{0,15}$/.test(value)) throw new UsageError('Give the numeric ID of a key (see "petstore keys list").');
  return Number(value);
}

const DEFAULT_GRACE = '24h';

function isoSeconds(d: Date) {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

const date = (d: Date | null | undefined) => (d ? isoSeconds(d) : '-');

/** The expiry asked for with --expires-in or --expires-at (null: none asked), refused unless it lies ahead. */
function expiryOption(values: { 'expires-in'?: string | undefined; 'expires-at'?: string | undefined }, now: number) {
  const { 'expires-in': expiresIn, 'expires-at': expiresAt } = values;
  if (expiresIn !== undefined && expiresAt !== undefined) throw new UsageError('Give --expires-in or --expires-at, not both.');
  if (expiresIn !== undefined) {
    const ms = parseDuration(expiresIn);
    if (!ms) throw new UsageError(`--expires-in must be a duration above 0 such as 30d, 12h or 1d12h, not "${expiresIn}".`);
    return new Date(now + ms);
  }
  if (expiresAt !== undefined) {
    const at = parseInstant(expiresAt);
    if (!at) throw new UsageError(`--expires-at must be a time with its zone such as 2027-01-01T00:00:00Z, or a date, not "${expiresAt}".`);
    if (at.getTime() <= now) throw new UsageError(`--expires-at must lie ahead; ${isoSeconds(at)} has passed.`);
    return at;
  }
  return null;
}

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

/** The report of keys that still call deprecated operations, with each operation's sunset. */
function deprecatedRow(usage: DeprecatedUsage) {
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

function table(rows: Record<string, string>[]): string {
  if (!rows.length) return 'No keys.\n';
  const columns = Object.keys(rows[0]!);
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => r[c]!.length)));
  const line = (cells: string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => r[c]!)))].join('\n') + '\n';
}

async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      help: { type: 'boolean', short: 'h' },
      plan: { type: 'string' },
      label: { type: 'string' },
      'per-minute': { type: 'string' },
      'per-day': { type: 'string' },
      json: { type: 'boolean' },
      'expires-in': { type: 'string' },
      'expires-at': { type: 'string' },
      grace: { type: 'string' },
    },
  });
  const [group, command, ...rest] = positionals;
  if (values.help || !group) {
    process.stdout.write(HELP);
    return values.help ? 0 : 2;
  }
  const config = loadConfig(process.env);
  if (group === 'backup' || group === 'restore') return group === 'backup' ? backup(config, command) : restore(config, command);
  if (group !== 'keys' || !command) throw new UsageError(`Unknown command "${positionals.join(' ')}".`);
  // Options are checked before the database opens, so a mistake is reported at once.
  const expiresAt = command === 'create' || command === 'roll' ? expiryOption(values, systemClock.now()) : null;
  const grace = values.grace ?? DEFAULT_GRACE;
  const graceMs = parseDuration(grace);
  if (command === 'roll' && (graceMs === undefined || graceMs > MAX_GRACE_MS)) {
    throw new UsageError(`--grace must be a duration from 0 to 365d such as 24h or 7d, not "${grace}".`);
  }

  const { keys, close } = await openKeys(config);
  try {
    switch (command) {
      case 'create': {
        const plan = values.plan;
        if (!plan || !(PLAN_NAMES as readonly string[]).includes(plan)) {
          throw new UsageError(`--plan is required: one of ${PLAN_NAMES.join(', ')}.`);
        }
        const hasLimits = values['per-minute'] !== undefined || values['per-day'] !== undefined;
        if (hasLimits && plan !== 'enterprise') throw new UsageError('Only an enterprise key takes --per-minute and --per-day.');
        const limits = hasLimits
          ? { perMinute: positiveInteger('per-minute', values['per-minute']), perDay: positiveInteger('per-day', values['per-day']) }
          : undefined;
        const { key, record } = await keys.create({
          plan: plan as PlanName,
          label: values.label ?? null,
          expiresAt,
          ...(limits ? { limits } : {}),
        });
        const until = expiresAt ? `, until ${isoSeconds(expiresAt)}` : '';
        process.stderr.write(`Created key ${record.id} (${record.plan}${until}). Store it now: it is not shown again.\n`);
        process.stdout.write(`${key}\n`);
        return 0;
      }
      case 'roll': {
        const id = keyId(rest[0]);
        const rolled = await keys.roll(id, { graceMs: graceMs!, ...(expiresAt ? { expiresAt } : {}) });
        if (rolled === 'not_found') throw new UsageError(`No key with ID ${id}.`);
        if (rolled === 'revoked') throw new UsageError(`Key ${id} is revoked; create a new key instead.`);
        if (rolled === 'expired') throw new UsageError(`Key ${id} has expired; create a new key instead.`);
        if (rolled === 'already_rolled') throw new UsageError(`Key ${id} was already rolled; roll its replacement instead.`);
        const { record, previous } = rolled;
        process.stderr.write(
          `Rolled key ${id} into key ${record.id} (${record.plan}${record.expiresAt ? `, until ${isoSeconds(record.expiresAt)}` : ''}). ` +
            `Key ${id} works until ${isoSeconds(previous.expiresAt!)}. Store the new key now: it is not shown again.\n`,
        );
        process.stdout.write(`${rolled.key}\n`);
        return 0;
      }
      case 'list': {
        const [records, usage] = await Promise.all([keys.list(), keys.deprecatedUsage()]);
        const rows = records.map((record) => row(record, usage));
        process.stdout.write(values.json ? `${JSON.stringify(rows, null, 2)}\n` : table(rows));
        return 0;
      }
      case 'deprecated': {
        const rows = (await keys.deprecatedUsage()).map(deprecatedRow);
        if (values.json) process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
        else process.stdout.write(rows.length ? table(rows) : 'No key has called a deprecated operation.\n');
        return 0;
      }
      case 'revoke': {
        const id = keyId(rest[0]);
        if (!(await keys.revoke(id))) throw new UsageError(`No key with ID ${id}.`);
        process.stdout.write(`Revoked key ${id}.\n`);
        return 0;
      }
      case 'set-limits': {
        const id = keyId(rest[0]);
        const limits = { perMinute: positiveInteger('per-minute', values['per-minute']), perDay: positiveInteger('per-day', values['per-day']) };
        const result = await keys.setLimits(id, limits);
        if (result === 'not_found') throw new UsageError(`No key with ID ${id}.`);
        if (result === 'not_enterprise') throw new UsageError(`Key ${id} is not an enterprise key; its plan sets its limits.`);
        process.stdout.write(`Key ${id} now allows ${limits.perMinute} requests a minute and ${limits.perDay} a day.\n`);
        return 0;
      }
      default:
        throw new UsageError(`Unknown command "keys ${command}".`);
    }
  } finally {
    await close();
  }
}

/**
 * The key store: through the running service's admin channel when a service runs on the embedded folder (only one
 * process may open it), else straight from the database (PostgreSQL always; the embedded folder under its lock).
 */
async function openKeys(config: Config) {
  if (config.dataDirIsFolder) {
    const admin = await connectAdminChannel(config.dataDir);
    if (admin) return { keys: admin.keys, close: async () => {} };
  }
  const releaseLock = config.dataDirIsFolder ? await acquireDataDirLock(config.dataDir) : async () => {};
  const service = await openPetStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    poolSize: 1,
    rateLimitStore: 'none',
  }).catch(async (error: unknown) => {
    await releaseLock();
    throw error;
  });
  return {
    keys: { ...service.store.apiKeys, deprecatedUsage: () => service.store.deprecatedUsage() } as KeyAdmin,
    async close() {
      await service.close();
      await releaseLock();
    },
  };
}

async function backup(config: Config, file: string | undefined): Promise<number> {
  if (!file) throw new UsageError('Give the file to write: petstore backup FILE.');
  if (!config.dataDirIsFolder) {
    throw new UsageError('backup copies the embedded database in a folder; for PostgreSQL use pg_dump (see the README).');
  }
  const admin = await connectAdminChannel(config.dataDir);
  let bytes: Buffer;
  if (admin) {
    bytes = await admin.backup();
  } else {
    const releaseLock = await acquireDataDirLock(config.dataDir);
    try {
      const database = await openDatabase({ dataDir: config.dataDir });
      try {
        bytes = Buffer.from(await (await database.backup!()).arrayBuffer());
      } finally {
        await database.close();
      }
    } finally {
      await releaseLock();
    }
  }
  await writeFile(file, bytes);
  process.stdout.write(`Wrote a backup of ${config.dataDir} to ${file} (${bytes.length} bytes).\n`);
  return 0;
}

async function restore(config: Config, file: string | undefined): Promise<number> {
  if (!file) throw new UsageError('Give the backup to restore: petstore restore FILE.');
  if (!config.dataDirIsFolder) throw new UsageError('restore fills an embedded data folder (PETSTORE_DATA_DIR); for PostgreSQL use pg_restore.');
  const bytes = await readFile(file);
  const releaseLock = await acquireDataDirLock(config.dataDir);
  try {
    await restoreDataDir(config.dataDir, new Blob([bytes]));
  } finally {
    await releaseLock();
  }
  process.stdout.write(`Restored ${file} into ${config.dataDir}.\n`);
  return 0;
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const known = error instanceof UsageError || error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`petstore: ${(error as Error).message}\n${known ? 'Run "petstore --help" for usage.\n' : ''}`);
    process.exit(known ? 2 : 1);
  },
);
