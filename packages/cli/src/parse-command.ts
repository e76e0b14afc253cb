import { parseArgs } from 'node:util';
import { PLAN_NAMES, type PlanName } from '@petstore/core';

/** A command line the tool understood: what to do, on which database and schema. */
export type Command =
  | { name: 'help'; text: string }
  | (Target &
      (
        | { name: 'create'; plan: PlanName; label: string | undefined; limits: Limits | undefined; expiresAt: Date | undefined }
        | { name: 'list'; json: boolean }
        | { name: 'revoke'; id: number }
        | { name: 'set-limits'; id: number; limits: Limits }
      ));

/** Where the keys live: the host's database and the store's schema in it. */
export interface Target {
  databaseUrl: string;
  schema: string | undefined;
}

type Limits = { perMinute: number; perDay: number };

/** A command line the tool does not take: the message says why, and the process exits 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const HELP = `Usage: npx @petstore/cli keys <command> [options]

Manages the API keys of a Pet Store embedded in your service, on your PostgreSQL database.

Commands:
  keys create --plan free|pro|business|enterprise [--label TEXT] [--expires-at TIME]
              [--per-minute N --per-day N]        prints the new key once (limits: enterprise only)
  keys list [--json]                              every key: id, label, plan, limits, dates
  keys revoke ID                                  refused everywhere within one second
  keys set-limits ID --per-minute N --per-day N   an enterprise key's own limits

Options:
  --database-url URL   the database (default: DATABASE_URL)
  --schema NAME        the schema the store's tables are in (openPetStore's schema; default: the current one)
  --help               this text
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

/**
 * Reads a command line of the key tool; throws {@link UsageError} for one it does not take, before anything opens.
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
        help: { type: 'boolean' },
        'database-url': { type: 'string' },
        schema: { type: 'string' },
        plan: { type: 'string' },
        label: { type: 'string' },
        'expires-at': { type: 'string' },
        'per-minute': { type: 'string' },
        'per-day': { type: 'string' },
        json: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) return { name: 'help', text: HELP };
  const [group, name, id, ...extra] = positionals;
  if (group !== 'keys') throw new UsageError(`Unknown command ${JSON.stringify(group)}: the tool manages keys (keys create, list, revoke, set-limits).`);
  const databaseUrl = values['database-url'] ?? env['DATABASE_URL'];
  if (!databaseUrl) throw new UsageError('No database: give --database-url or set DATABASE_URL.');
  const target: Target = { databaseUrl, schema: values.schema };
  const allowed: Record<string, readonly string[]> = {
    create: ['plan', 'label', 'expires-at', 'per-minute', 'per-day'],
    list: ['json'],
    revoke: [],
    'set-limits': ['per-minute', 'per-day'],
  };
  const own = name === undefined ? undefined : allowed[name];
  if (!own) throw new UsageError(`Unknown command keys ${name ?? ''}: use keys create, list, revoke or set-limits.`.replace(' :', ':'));
  for (const option of Object.keys(values)) {
    if (!['database-url', 'schema', ...own].includes(option)) throw new UsageError(`keys ${name} does not take --${option}.`);
  }
  const takesId = name === 'revoke' || name === 'set-limits';
  if (extra.length > 0 || (takesId ? id === undefined : id !== undefined)) {
    throw new UsageError(takesId ? `keys ${name} takes one key ID.` : `keys ${name} takes no argument.`);
  }
  switch (name) {
    case 'create': {
      const plan = values.plan as PlanName | undefined;
      if (!plan || !PLAN_NAMES.includes(plan)) throw new UsageError(`--plan must be one of ${PLAN_NAMES.join(', ')}.`);
      const limits = limitsOf(values);
      if (limits && plan !== 'enterprise') throw new UsageError('--per-minute and --per-day are for enterprise keys only.');
      const expiresAt = values['expires-at'] === undefined ? undefined : new Date(values['expires-at']);
      if (expiresAt && (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= now)) {
        throw new UsageError('--expires-at must be a time ahead, with its zone (2027-01-01T00:00:00Z).');
      }
      return { ...target, name, plan, label: values.label, limits, expiresAt };
    }
    case 'list':
      return { ...target, name, json: values.json === true };
    case 'revoke':
      return { ...target, name, id: wholeNumber('ID', id) };
    default: {
      const limits = limitsOf(values);
      if (!limits) throw new UsageError('keys set-limits needs --per-minute and --per-day.');
      return { ...target, name: 'set-limits', id: wholeNumber('ID', id), limits };
    }
  }
}
