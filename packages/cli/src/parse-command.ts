import { isAbsolute } from 'node:path';
import { parseArgs } from 'node:util';
import { labelProblem, MAX_GRACE_MS, PLAN_NAMES, shownText, type Limits, type PlanName } from '@petstore/core/input-rules';
import { parseDuration, parseInstant } from './duration.js';
import { USAGE_OPTIONS, usageSelection, type UsageSelection } from './usage-selection.js';
import { DELIVERIES_OPTIONS, webhookCommand, type WebhookCommand } from './webhook-selection.js';

/** Where the keys live: the host's PostgreSQL database, or an embedded data folder; and the store's schema in it. */
export type Target = (
  | { databaseUrl: string; dataDir?: undefined }
  /** `runtimeDir`: `$XDG_RUNTIME_DIR`, where a service's admin channel is looked for first. */
  | { dataDir: string; runtimeDir: string | undefined; databaseUrl?: undefined }
) & { schema: string | undefined };

/** A command line the tool understood: what to do, on which database and schema. */
export type Command =
  | { name: 'help'; text: string }
  | { name: 'version' }
  | (Target &
      (
        | { name: 'create'; plan: PlanName; label: string | undefined; limits: Limits | undefined; expiresAt: Date | undefined }
        | { name: 'roll'; id: number; graceMs: number; expiresAt: Date | undefined }
        | { name: 'list'; json: boolean }
        | { name: 'revoke'; id: number }
        | { name: 'set-limits'; id: number; limits: Limits }
        | ({ name: 'usage' } & UsageSelection)
        | WebhookCommand
      ));

/** A command line the tool does not take: the message says why, and the process exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

const DEFAULT_GRACE = '24h';

const usageOptions = USAGE_OPTIONS.map(([name, value, text]) => `  ${`--${name}${value ? ` ${value}` : ''}`.padEnd(19)}  ${text}`).join('\n');

const deliveriesOptions = DELIVERIES_OPTIONS.map(([name, value, text]) => `  ${`--${name}${value ? ` ${value}` : ''}`.padEnd(19)}  ${text}`).join('\n');

export const HELP = `Usage: npx @petstore/cli keys <command> [options]
       npx @petstore/cli usage [options]
       npx @petstore/cli webhooks <command> [options]

Manages the API keys of a Pet Store embedded in your service, reports their usage, and looks after its webhooks:
on your PostgreSQL database, or in an embedded data folder (through the service's admin channel while a Pet Store
service runs on it, directly when none does).

Commands:
  keys create --plan free|pro|business|enterprise [--label TEXT]
              [--expires-in DURATION | --expires-at TIME]
              [--per-minute N --per-day N]        prints the new key once (limits: enterprise only)
  keys roll ID [--grace DURATION] [--expires-in DURATION | --expires-at TIME]
                                                  prints a key replacing key ID (same label, plan, limits);
                                                  key ID keeps working for the grace (default ${DEFAULT_GRACE}), then stops
  keys list [--json]                              every key: id, label, plan, limits, dates, replaced by
  keys revoke ID                                  refused everywhere within one second
  keys set-limits ID --per-minute N --per-day N   an enterprise key's own limits
  usage [--from DAY] [--to DAY] [--key ID] [--plan PLAN] [--format table|csv|json] [--totals] [--html FILE]
                                                  requests per key, UTC day, plan and operation: served, 429,
                                                  ban, other 4xx, 5xx, unmetered (getUsage); a rolled key's rows
                                                  under its first key's id, with the ids they came from
  webhooks list [--json]                          every owner's webhook endpoints: id, owner (its first key, the
                                                  keys of its lineage, label), url, events, enabled or disabled,
                                                  failing since, pending deliveries; never a secret
  webhooks deliveries WEBHOOK_ID [--status STATUS] [--limit N] [--json]
                                                  an endpoint's deliveries, newest first: status, attempts, last
                                                  attempt, last status or error, next attempt
  webhooks redeliver WEBHOOK_ID DELIVERY_ID       sends that delivery's event again (same webhook-id), due now

Usage options:
${usageOptions}

Deliveries options:
${deliveriesOptions}

DURATION is a number and a unit, or several: 90s, 30m, 12h, 30d, 2w, 1d12h (0: no grace). TIME is an
instant with its zone (2027-01-01T00:00:00Z) or a date (2027-01-01, midnight UTC).

Options:
  --database-url URL   a postgres:// URL (default: DATABASE_URL)
  --data-dir DIR       an embedded data folder instead (openPetStore's dataDir; default: PETSTORE_DATA_DIR
                       when DATABASE_URL is not set)
  --schema NAME        the schema the store's tables are in (openPetStore's schema; default: the current one)
  -v, --version        the release of this tool
  -h, --help           this text
`;

const wholeNumber = (name: string, value: string | undefined) => {
  const number = Number(value);
  if (value === undefined || !/^[1-9][0-9]*$/.test(value) || !Number.isSafeInteger(number)) {
    throw new UsageError(`${name} must be a whole number from 1, not ${JSON.stringify(value)}.`);
  }
  return number;
};

function limitsOf(values: { 'per-minute'?: string | undefined; 'per-day'?: string | undefined }): Limits | undefined {
  if (values['per-minute'] === undefined && values['per-day'] === undefined) return undefined;
  return { perMinute: wholeNumber('--per-minute', values['per-minute']), perDay: wholeNumber('--per-day', values['per-day']) };
}

/** The expiry asked for with --expires-in or --expires-at, refused unless it lies ahead. */
function expiryOf(values: { 'expires-in'?: string | undefined; 'expires-at'?: string | undefined }, now: number): Date | undefined {
  const { 'expires-in': expiresIn, 'expires-at': expiresAt } = values;
  if (expiresIn !== undefined && expiresAt !== undefined) throw new UsageError('Give --expires-in or --expires-at, not both.');
  if (expiresIn !== undefined) {
    const ms = parseDuration(expiresIn);
    if (!ms) throw new UsageError(`--expires-in must be a duration above 0 such as 30d, 12h or 1d12h, not ${JSON.stringify(expiresIn)}.`);
    return new Date(now + ms);
  }
  if (expiresAt === undefined) return undefined;
  const at = parseInstant(expiresAt);
  if (!at || at.getTime() <= now) throw new UsageError('--expires-at must be a time ahead, with its zone (2027-01-01T00:00:00Z) or a date (2027-01-01).');
  return at;
}

/** The database asked for: a flag, else DATABASE_URL, else PETSTORE_DATA_DIR; a folder given as a URL is named as such. */
function targetOf(values: { 'database-url'?: string | undefined; 'data-dir'?: string | undefined; schema?: string | undefined }, env: Readonly<Record<string, string | undefined>>): Target {
  const schema = values.schema;
  if (values['database-url'] !== undefined && values['data-dir'] !== undefined) throw new UsageError('Give --database-url or --data-dir, not both.');
  const fromFlags = values['database-url'] ?? (values['data-dir'] === undefined ? env['DATABASE_URL'] : undefined);
  if (fromFlags !== undefined) {
    if (!/^postgres(?:ql)?:\/\//.test(fromFlags)) {
      const source = values['database-url'] !== undefined ? '--database-url' : 'DATABASE_URL';
      throw new UsageError(`${source} must be a postgres:// URL, not ${JSON.stringify(fromFlags)}; for an embedded data folder give --data-dir ${fromFlags}.`);
    }
    return { databaseUrl: fromFlags, schema };
  }
  const dataDir = values['data-dir'] ?? env['PETSTORE_DATA_DIR'];
  if (dataDir === undefined || dataDir === '') {
    throw new UsageError('No database: give --database-url URL (or set DATABASE_URL) for PostgreSQL, or --data-dir DIR for an embedded data folder.');
  }
  if (dataDir === 'memory://') throw new UsageError('memory:// keeps no keys for another process to manage: give the data folder of the store.');
  // The XDG rule: a relative XDG_RUNTIME_DIR is ignored, as the service ignores it.
  const runtimeDir = env['XDG_RUNTIME_DIR'];
  return { dataDir, runtimeDir: runtimeDir && isAbsolute(runtimeDir) ? runtimeDir : undefined, schema };
}

/**
 * Reads a command line of the key tool; throws {@link UsageError} for one it does not take, before anything opens.
 * Loads nothing but node:util and the store's input rules, so help and mistakes answer at once.
 * @example parseCommand(['keys', 'create', '--plan', 'pro'], { DATABASE_URL: 'postgres://…' })
 */
export function parseCommand(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, now = Date.now()): Command {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'v' },
        'database-url': { type: 'string' },
        'data-dir': { type: 'string' },
        schema: { type: 'string' },
        plan: { type: 'string' },
        label: { type: 'string' },
        'expires-at': { type: 'string' },
        'expires-in': { type: 'string' },
        grace: { type: 'string' },
        'per-minute': { type: 'string' },
        'per-day': { type: 'string' },
        json: { type: 'boolean' },
        from: { type: 'string' },
        to: { type: 'string' },
        key: { type: 'string' },
        format: { type: 'string' },
        totals: { type: 'boolean' },
        html: { type: 'string' },
        status: { type: 'string' },
        limit: { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.version) {
    if (argv.length > 1) throw new UsageError(`${argv.find((arg) => arg === '-v' || arg === '--version') ?? '--version'} takes nothing else.`);
    return { name: 'version' };
  }
  if (values.help || positionals.length === 0) return { name: 'help', text: HELP };
  if (positionals[0] === 'usage') return usageCommand(values, positionals, env);
  if (positionals[0] === 'webhooks') return webhooksCommand(values, positionals, env);
  const [group, name, id, ...extra] = positionals;
  if (group !== 'keys') {
    throw new UsageError(
      `Unknown command ${JSON.stringify(group)}: the tool manages keys (keys create, roll, list, revoke, set-limits), reports usage (usage) and shows webhooks (webhooks list, deliveries, redeliver).`,
    );
  }
  const allowed: Record<string, readonly string[]> = {
    create: ['plan', 'label', 'expires-at', 'expires-in', 'per-minute', 'per-day'],
    roll: ['grace', 'expires-at', 'expires-in'],
    list: ['json'],
    revoke: [],
    'set-limits': ['per-minute', 'per-day'],
  };
  const own = name === undefined ? undefined : allowed[name];
  if (!own) throw new UsageError(`Unknown command keys ${name ?? ''}: use keys create, roll, list, revoke or set-limits.`.replace(' :', ':'));
  for (const option of Object.keys(values)) {
    if (!['database-url', 'data-dir', 'schema', ...own].includes(option)) throw new UsageError(`keys ${name} does not take --${option}.`);
  }
  const takesId = name === 'revoke' || name === 'set-limits' || name === 'roll';
  if (extra.length > 0 || (takesId ? id === undefined : id !== undefined)) {
    throw new UsageError(takesId ? `keys ${name} takes one key ID.` : `keys ${name} takes no argument.`);
  }
  switch (name) {
    case 'create': {
      const plan = values.plan as PlanName | undefined;
      if (!plan || !PLAN_NAMES.includes(plan)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}.`);
      const limits = limitsOf(values);
      if (limits && plan !== 'enterprise') throw new UsageError('--per-minute and --per-day are for enterprise keys only.');
      const expiresAt = expiryOf(values, now);
      const problem = values.label === undefined ? undefined : labelProblem(values.label);
      if (problem) throw new UsageError(`--label ${problem}, not "${shownText(values.label!)}".`);
      return { ...targetOf(values, env), name, plan, label: values.label, limits, expiresAt };
    }
    case 'roll': {
      const grace = values.grace ?? DEFAULT_GRACE;
      const graceMs = parseDuration(grace);
      if (graceMs === undefined || graceMs > MAX_GRACE_MS) {
        throw new UsageError(`--grace must be a duration from 0 to 365d such as 24h or 7d, not ${JSON.stringify(grace)}.`);
      }
      const expiresAt = expiryOf(values, now);
      return { ...targetOf(values, env), name, id: wholeNumber('ID', id), graceMs, expiresAt };
    }
    case 'list':
      return { ...targetOf(values, env), name, json: values.json === true };
    case 'revoke':
      return { ...targetOf(values, env), name, id: wholeNumber('ID', id) };
    default: {
      const limits = limitsOf(values);
      if (!limits) throw new UsageError('keys set-limits needs --per-minute and --per-day.');
      return { ...targetOf(values, env), name: 'set-limits', id: wholeNumber('ID', id), limits };
    }
  }
}

/** `usage`: the report's options checked as the service's `petstore usage` checks them, then the target. */
function usageCommand(values: Record<string, string | boolean | undefined>, positionals: readonly string[], env: Readonly<Record<string, string | undefined>>): Command {
  if (positionals.length > 1) throw new UsageError('usage takes no argument.');
  const own = USAGE_OPTIONS.map(([name]) => name);
  for (const option of Object.keys(values)) {
    if (!['database-url', 'data-dir', 'schema', ...own].includes(option)) throw new UsageError(`usage does not take --${option}.`);
  }
  let selection;
  try {
    selection = usageSelection(values as Parameters<typeof usageSelection>[0]);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return { ...targetOf(values, env), name: 'usage', ...selection };
}

/** `webhooks list | deliveries | redeliver`: the arguments and options as the service's `petstore webhooks` checks them, then the target. */
function webhooksCommand(values: Record<string, string | boolean | undefined>, positionals: readonly string[], env: Readonly<Record<string, string | undefined>>): Command {
  const [, name = '', ...args] = positionals;
  const own: Record<string, readonly string[]> = { list: ['json'], deliveries: ['status', 'limit', 'json'], redeliver: [] };
  const takes = Object.hasOwn(own, name) ? own[name]! : undefined;
  if (!takes) throw new UsageError(`Unknown command webhooks ${name}: use webhooks list, deliveries or redeliver.`.replace(' :', ':'));
  for (const option of Object.keys(values)) {
    if (!['database-url', 'data-dir', 'schema', ...takes].includes(option)) throw new UsageError(`webhooks ${name} does not take --${option}.`);
  }
  const count = { list: 0, deliveries: 1, redeliver: 2 }[name as 'list'];
  if (args.length !== count) {
    throw new UsageError(count === 0 ? `webhooks ${name} takes no argument.` : `webhooks ${name} takes ${count === 1 ? 'WEBHOOK_ID' : 'WEBHOOK_ID DELIVERY_ID'}.`);
  }
  let command;
  try {
    command = webhookCommand(name, args, values as Parameters<typeof webhookCommand>[2]);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  return { ...targetOf(values, env), ...command };
}
