#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { MAX_GRACE_MS, PLAN_NAMES, systemClock, type ApiKeyRecord, type PlanName } from '@petstore/core';
import { openPetStore } from '@petstore/embed';
import { ConfigError, loadConfig } from './config.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import { parseDuration, parseInstant } from './duration.js';

const HELP = `Usage: petstore keys <command> [options]

Manage the API keys of the Pet Store. Uses the database the service uses:
DATABASE_URL (PostgreSQL) or else the embedded database in PETSTORE_DATA_DIR.

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
                                           expires, replaced by.
  revoke ID                                Revoke a key (effective within one second on every instance).
  set-limits ID --per-minute N --per-day N Set the limits of an enterprise key.

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

function row(record: ApiKeyRecord) {
  const date = (d: Date | null | undefined) => (d ? isoSeconds(d) : '-');
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
  if (group !== 'keys' || !command) throw new UsageError(`Unknown command "${positionals.join(' ')}".`);
  // Options are checked before the database opens, so a mistake is reported at once.
  const expiresAt = command === 'create' || command === 'roll' ? expiryOption(values, systemClock.now()) : null;
  const grace = values.grace ?? DEFAULT_GRACE;
  const graceMs = parseDuration(grace);
  if (command === 'roll' && (graceMs === undefined || graceMs > MAX_GRACE_MS)) {
    throw new UsageError(`--grace must be a duration from 0 to 365d such as 24h or 7d, not "${grace}".`);
  }

  const config = loadConfig(process.env);
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
  const keys = service.store.apiKeys;
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
        const records = await keys.list();
        process.stdout.write(values.json ? `${JSON.stringify(records.map(row), null, 2)}\n` : table(records.map(row)));
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
    await service.close();
    await releaseLock();
  }
}

run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const known = error instanceof UsageError || error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`petstore: ${(error as Error).message}\n${known ? 'Run "petstore --help" for usage.\n' : ''}`);
    process.exit(known ? 2 : 1);
  },
);
