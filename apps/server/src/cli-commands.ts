import { parseArgs } from 'node:util';
import type { DomainRedirect } from '@petstore/core';
import { labelProblem, MAX_GRACE_MS, MAX_LABEL_LENGTH, normalizeDomainName, PLAN_NAMES, shownText, type Limits, type PlanName } from '@petstore/core/input-rules';
import { parseDuration, parseInstant } from '@petstore/cli/duration';
import { USAGE_OPTIONS, usageSelection, type UsageSelection } from '@petstore/cli/usage';
import { DELIVERIES_OPTIONS, webhookCommand, type WebhookCommand } from '@petstore/cli/webhooks';

/** A command line the key tool does not take: the tool says why on stderr and exits with 2, touching nothing. */
export class UsageError extends Error {
  /** The command whose help would have helped (`keys create`), or none for the tool's own. */
  readonly command: string | undefined;
  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}

/** What the key tool was asked to do, every value checked. */
export type Command =
  | { name: 'help'; text: string }
  | { name: 'version' }
  | { name: 'keys create'; plan: PlanName; label: string | null; limits: Limits | undefined; expiresAt: Date | null }
  | { name: 'keys roll'; id: number; graceMs: number; expiresAt: Date | null }
  | { name: 'keys list'; json: boolean }
  | { name: 'keys deprecated'; json: boolean }
  | { name: 'keys revoke'; id: number }
  | { name: 'keys set-limits'; id: number; limits: Limits }
  | { name: 'domains add'; domain: string }
  | { name: 'domains verify'; domain: string }
  | { name: 'domains list'; json: boolean }
  | { name: 'domains remove'; domain: string }
  | { name: 'domains redirect'; domain: string; redirect: DomainRedirect | null }
  | { name: 'backup'; file: string }
  | { name: 'restore'; file: string }
  | ({ name: 'usage' } & UsageSelection)
  | WebhookCommand;

type Values = Record<string, string | boolean | undefined>;

interface Option {
  type: 'string' | 'boolean';
  /** What the value is called in help (`PLAN`); none for a flag. */
  value?: string;
  text: string;
}

interface CommandSpec {
  /** The words and arguments after `petstore`, as help shows them. */
  usage: string;
  summary: string;
  /** More lines for the command's own help. */
  details?: string;
  /** Names of the arguments, in order; each is required. */
  args: string[];
  /** What to say when an argument is missing. */
  missing?: string;
  options: Record<string, Option>;
  build(values: Values, args: string[], now: number): Exclude<Command, { name: 'help' | 'version' }>;
}

const DEFAULT_GRACE = '24h';
const DURATION = 'the key stops working after this long (30d, 12h, 1d12h; units s m h d w)';
const INSTANT = 'or at this time (2027-01-01T00:00:00Z, or 2027-01-01 for 00:00 UTC)';
const PER_MINUTE: Option = { type: 'string', value: 'N', text: 'requests allowed per minute' };
const PER_DAY: Option = { type: 'string', value: 'N', text: 'requests allowed per UTC day' };
const JSON_OUTPUT: Option = { type: 'boolean', text: 'print JSON instead of a table' };

function positiveInteger(name: string, value: string | undefined, command: string): number {
  if (value === undefined) throw new UsageError(`--${name} is required.`, command);
  if (!/^[1-9][0-9]{0,9}$/.test(value) || Number(value) > 2_147_483_647) {
    throw new UsageError(`--${name} must be a whole number from 1 to 2147483647, not "${value}".`, command);
  }
  return Number(value);
}

function keyId(value: string, command: string): number {
  if (!/^[1-9][0-9]{0,15}$/.test(value)) throw new UsageError(`Give the numeric ID of a key (see "petstore keys list"), not "${value}".`, command);
  return Number(value);
}

const isoSeconds = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The expiry asked for with --expires-in or --expires-at (null: none asked), refused unless it lies ahead. */
function expiry(values: Values, now: number, command: string): Date | null {
  const expiresIn = values['expires-in'] as string | undefined;
  const expiresAt = values['expires-at'] as string | undefined;
  if (expiresIn !== undefined && expiresAt !== undefined) throw new UsageError('Give --expires-in or --expires-at, not both.', command);
  if (expiresIn !== undefined) {
    const ms = parseDuration(expiresIn);
    if (!ms) throw new UsageError(`--expires-in must be a duration above 0 such as 30d, 12h or 1d12h, not "${expiresIn}".`, command);
    return new Date(now + ms);
  }
  if (expiresAt !== undefined) {
    const at = parseInstant(expiresAt);
    if (!at) throw new UsageError(`--expires-at must be a time with its zone such as 2027-01-01T00:00:00Z, or a date, not "${expiresAt}".`, command);
    if (at.getTime() <= now) throw new UsageError(`--expires-at must lie ahead; ${isoSeconds(at)} has passed.`, command);
    return at;
  }
  return null;
}

function domainName(value: string, command: string): string {
  const name = normalizeDomainName(value);
  if (name === undefined) throw new UsageError(`Give a domain name such as api.example.com, not "${value}".`, command);
  return name;
}

const DOMAIN_MISSING = 'Give a domain name, such as api.example.com.';

/** A `webhooks` command checked as `@petstore/cli` checks it, its mistakes in the key tool's words. */
function webhooks(name: string, args: string[], values: Values) {
  try {
    return webhookCommand(name, args, values as Parameters<typeof webhookCommand>[2]);
  } catch (error) {
    throw new UsageError((error as Error).message, `webhooks ${name}`);
  }
}

/** The label of `--label`, refused (and shown escaped) unless it keeps the rule of a key's label. */
function labelOf(value: string | undefined): string | null {
  if (value === undefined) return null;
  const problem = labelProblem(value);
  if (problem) throw new UsageError(`--label ${problem}, not "${shownText(value)}".`, 'keys create');
  return value;
}

const limitsOf = (values: Values, command: string): Limits => ({
  perMinute: positiveInteger('per-minute', values['per-minute'] as string | undefined, command),
  perDay: positiveInteger('per-day', values['per-day'] as string | undefined, command),
});

/** Every command, its options and its checks: the one place the key tool's command line is defined. */
const commands: Record<string, CommandSpec> = {
  'keys create': {
    usage: 'keys create --plan PLAN [--label TEXT] [--per-minute N --per-day N] [--expires-in DURATION | --expires-at TIME]',
    summary: 'Create a key and print it (shown only this once).',
    details: `PLAN: ${PLAN_NAMES.join(', ')}. Only an enterprise key takes --per-minute and --per-day.`,
    args: [],
    options: {
      plan: { type: 'string', value: 'PLAN', text: `the key's plan: ${PLAN_NAMES.join(', ')}` },
      label: { type: 'string', value: 'TEXT', text: `a name for the key, shown by list: 1 to ${MAX_LABEL_LENGTH} characters, no control characters` },
      'per-minute': PER_MINUTE,
      'per-day': PER_DAY,
      'expires-in': { type: 'string', value: 'DURATION', text: DURATION },
      'expires-at': { type: 'string', value: 'TIME', text: INSTANT },
    },
    build(values, _args, now) {
      const plan = values['plan'] as string | undefined;
      if (!plan || !(PLAN_NAMES as readonly string[]).includes(plan)) {
        throw new UsageError(`--plan is required: one of ${PLAN_NAMES.join(', ')}.`, 'keys create');
      }
      const hasLimits = values['per-minute'] !== undefined || values['per-day'] !== undefined;
      if (hasLimits && plan !== 'enterprise') throw new UsageError('Only an enterprise key takes --per-minute and --per-day.', 'keys create');
      return {
        name: 'keys create',
        plan: plan as PlanName,
        label: labelOf(values['label'] as string | undefined),
        limits: hasLimits ? limitsOf(values, 'keys create') : undefined,
        expiresAt: expiry(values, now, 'keys create'),
      };
    },
  },
  'keys roll': {
    usage: 'keys roll ID [--grace DURATION] [--expires-in DURATION | --expires-at TIME]',
    summary: 'Replace a key: print a new key with the same label, plan, limits and expiry (shown only this once).',
    details: 'The old key keeps working for the grace period, then expires.',
    args: ['ID'],
    missing: 'Give the numeric ID of a key (see "petstore keys list").',
    options: {
      grace: { type: 'string', value: 'DURATION', text: `how long the old key keeps working (default ${DEFAULT_GRACE}, at most 365d; 0 stops it at once)` },
      'expires-in': { type: 'string', value: 'DURATION', text: `give the new key another expiry: ${DURATION}` },
      'expires-at': { type: 'string', value: 'TIME', text: INSTANT },
    },
    build(values, [id], now) {
      const grace = (values['grace'] as string | undefined) ?? DEFAULT_GRACE;
      const graceMs = parseDuration(grace);
      if (graceMs === undefined || graceMs > MAX_GRACE_MS) {
        throw new UsageError(`--grace must be a duration from 0 to 365d such as 24h or 7d, not "${grace}".`, 'keys roll');
      }
      return { name: 'keys roll', id: keyId(id!, 'keys roll'), graceMs, expiresAt: expiry(values, now, 'keys roll') };
    },
  },
  'keys list': {
    usage: 'keys list [--json]',
    summary: 'List keys: id, label, plan, limits, created, last used, revoked, expires, replaced by, deprecated calls.',
    args: [],
    options: { json: JSON_OUTPUT },
    build: (values) => ({ name: 'keys list', json: values['json'] === true }),
  },
  'keys deprecated': {
    usage: 'keys deprecated [--json]',
    summary: 'Keys that still call deprecated operations: how often, when last, and when each is removed.',
    args: [],
    options: { json: JSON_OUTPUT },
    build: (values) => ({ name: 'keys deprecated', json: values['json'] === true }),
  },
  'keys revoke': {
    usage: 'keys revoke ID',
    summary: 'Revoke a key (effective within one second on every instance).',
    args: ['ID'],
    missing: 'Give the numeric ID of a key (see "petstore keys list").',
    options: {},
    build: (_values, [id]) => ({ name: 'keys revoke', id: keyId(id!, 'keys revoke') }),
  },
  'keys set-limits': {
    usage: 'keys set-limits ID --per-minute N --per-day N',
    summary: 'Set the limits of an enterprise key.',
    args: ['ID'],
    missing: 'Give the numeric ID of a key (see "petstore keys list").',
    options: { 'per-minute': PER_MINUTE, 'per-day': PER_DAY },
    build: (values, [id]) => ({ name: 'keys set-limits', id: keyId(id!, 'keys set-limits'), limits: limitsOf(values, 'keys set-limits') }),
  },
  'domains add': {
    usage: 'domains add DOMAIN',
    summary: 'Add a custom domain as pending; it is served once verified.',
    details: 'Then point DOMAIN at PETSTORE_PLATFORM_HOST: a CNAME for a subdomain, an ALIAS/ANAME for an apex domain.',
    args: ['DOMAIN'],
    missing: DOMAIN_MISSING,
    options: {},
    build: (_values, [domain]) => ({ name: 'domains add', domain: domainName(domain!, 'domains add') }),
  },
  'domains verify': {
    usage: 'domains verify DOMAIN',
    summary: 'Check the domain in DNS now; served within one second on every instance once verified.',
    details: 'Pending domains are also checked again by themselves, with backoff, for 48 hours. Exits with 1 when not verified.',
    args: ['DOMAIN'],
    missing: DOMAIN_MISSING,
    options: {},
    build: (_values, [domain]) => ({ name: 'domains verify', domain: domainName(domain!, 'domains verify') }),
  },
  'domains list': {
    usage: 'domains list [--json]',
    summary: 'List custom domains: state (pending, verified, failed), last check and its reason, next check, redirect.',
    args: [],
    options: { json: JSON_OUTPUT },
    build: (values) => ({ name: 'domains list', json: values['json'] === true }),
  },
  'domains remove': {
    usage: 'domains remove DOMAIN',
    summary: 'Stop serving a domain (within one second on every instance) and allow it no new certificate.',
    args: ['DOMAIN'],
    missing: DOMAIN_MISSING,
    options: {},
    build: (_values, [domain]) => ({ name: 'domains remove', domain: domainName(domain!, 'domains remove') }),
  },
  'domains redirect': {
    usage: 'domains redirect DOMAIN TARGET [--status 301|308]',
    summary: 'Answer requests for DOMAIN with a redirect to TARGET, path and query kept; TARGET none stops it.',
    details: 'DOMAIN must be added; the redirect is answered once it is verified. TARGET is another host of the service.',
    args: ['DOMAIN', 'TARGET'],
    missing: 'Give the domain and its target: petstore domains redirect old.example.com api.example.com.',
    options: { status: { type: 'string', value: 'STATUS', text: 'the redirect status: 301 (the default) or 308' } },
    build(values, [domain, target]) {
      const status = (values['status'] as string | undefined) ?? '301';
      if (status !== '301' && status !== '308') throw new UsageError(`--status must be 301 or 308, not "${status}".`, 'domains redirect');
      if (target === 'none') {
        if (values['status'] !== undefined) throw new UsageError('--status goes with a TARGET, not with none.', 'domains redirect');
        return { name: 'domains redirect', domain: domainName(domain!, 'domains redirect'), redirect: null };
      }
      const to = domainName(target!, 'domains redirect');
      const name = domainName(domain!, 'domains redirect');
      if (to === name) throw new UsageError('A domain cannot redirect to itself.', 'domains redirect');
      return { name: 'domains redirect', domain: name, redirect: { to, status: status === '308' ? 308 : 301 } };
    },
  },
  'webhooks list': {
    usage: 'webhooks list [--json]',
    summary: "Every owner's webhook endpoints: id, owner (its first key, the keys of its lineage, label), url, events, state, failing since, pending.",
    details: 'Never prints a secret.',
    args: [],
    options: { json: JSON_OUTPUT },
    build: (values) => webhooks('list', [], values),
  },
  'webhooks deliveries': {
    usage: 'webhooks deliveries WEBHOOK_ID [--status STATUS] [--limit N] [--json]',
    summary: "An endpoint's deliveries, newest first: event, status, attempts, last attempt, last status or error, next attempt.",
    args: ['WEBHOOK_ID'],
    missing: 'Give the id of a webhook endpoint (see "petstore webhooks list").',
    options: Object.fromEntries(
      DELIVERIES_OPTIONS.map(([name, value, text]) => [name, value === undefined ? { type: 'boolean', text } : { type: 'string', value, text }]),
    ),
    build: (values, args) => webhooks('deliveries', args, values),
  },
  'webhooks redeliver': {
    usage: 'webhooks redeliver WEBHOOK_ID DELIVERY_ID',
    summary: "Send a delivery's event again (the same webhook-id) as a new delivery, due now; any owner's.",
    details: 'A running instance sends it within its poll (5 s by default), and retries it on the schedule.',
    args: ['WEBHOOK_ID', 'DELIVERY_ID'],
    missing: 'Give the endpoint and the delivery: petstore webhooks redeliver WEBHOOK_ID DELIVERY_ID (see "petstore webhooks deliveries WEBHOOK_ID").',
    options: {},
    build: (values, args) => webhooks('redeliver', args, values),
  },
  backup: {
    usage: 'backup FILE',
    summary: 'Write a consistent copy of the embedded database (gzipped tar), also while the service runs.',
    details: 'On PostgreSQL use pg_dump.',
    args: ['FILE'],
    missing: 'Give the file to write: petstore backup FILE.',
    options: {},
    build: (_values, [file]) => ({ name: 'backup', file: file! }),
  },
  restore: {
    usage: 'restore FILE',
    summary: 'Restore such a copy into an empty PETSTORE_DATA_DIR.',
    args: ['FILE'],
    missing: 'Give the backup to restore: petstore restore FILE.',
    options: {},
    build: (_values, [file]) => ({ name: 'restore', file: file! }),
  },
  usage: {
    usage: 'usage [--from DAY] [--to DAY] [--key ID] [--plan PLAN] [--format table|csv|json] [--totals] [--html FILE]',
    summary: 'Requests per key (or principal), UTC day, plan and operation: served, 429, ban, other 4xx, 5xx, unmetered.',
    details:
      'Read from the usage ledger, which every instance adds to within 5 s; days are UTC (YYYY-MM-DD), both ends\n' +
      "included. A rolled key's rows are under its first key's id, with the ids they came from (key_ids). CSV has a\n" +
      'header row and one line per day, key, plan and operation (with --totals: per key and plan over the period),\n' +
      'for a billing system.',
    args: [],
    options: Object.fromEntries(
      USAGE_OPTIONS.map(([name, value, text]) => [name, value === undefined ? { type: 'boolean', text } : { type: 'string', value, text }]),
    ),
    build(values) {
      try {
        return { name: 'usage', ...usageSelection(values as Parameters<typeof usageSelection>[0]) };
      } catch (error) {
        throw new UsageError((error as Error).message, 'usage');
      }
    },
  },
};

const HELP_OPTION = '  -h, --help'.padEnd(30) + 'Show this help.\n';
const VERSION_OPTION = '  -v, --version'.padEnd(30) + 'Print the release of the service (as /healthz names it).\n';

/** The tool's help: every command, one line of usage and one of purpose. */
export const HELP = `Usage: petstore keys <command> [options]
       petstore domains <command> [options]
       petstore webhooks <command> [options]
       petstore backup FILE | petstore restore FILE
       petstore usage [options]

Manage the API keys, custom domains and webhooks of the Pet Store. Uses the database the
service uses: DATABASE_URL (PostgreSQL) or else the embedded database in PETSTORE_DATA_DIR,
through the running service when it runs on that folder, directly otherwise.

Commands:
${Object.values(commands)
  .map((spec) => `  ${spec.usage}\n      ${spec.summary}\n`)
  .join('')}
Each command takes only its own options; "petstore keys create --help" shows them.

Options:
${HELP_OPTION}${VERSION_OPTION}`;

function commandHelp(spec: CommandSpec): string {
  const options = Object.entries(spec.options).map(
    ([name, option]) => `${`  --${name}${option.value ? ` ${option.value}` : ''}`.padEnd(30)}${option.text}\n`,
  );
  return `Usage: petstore ${spec.usage}\n\n${spec.summary}\n${spec.details ? `${spec.details}\n` : ''}\nOptions:\n${options.join('')}${HELP_OPTION}`;
}

/** Reads one command's own options and arguments, refusing anything else: an unknown or repeated option, a missing value, an argument too many or too few. */
function parseCommand(name: string, spec: CommandSpec, argv: string[], now: number): Command {
  const options = Object.fromEntries(Object.entries(spec.options).map(([option, { type }]) => [option, { type }]));
  // A first pass that refuses nothing, to name an option the command does not take in the command's own words.
  const { tokens: loose } = parseArgs({ args: argv, options, strict: false, allowPositionals: true, tokens: true });
  const seen = new Set<string>();
  for (const token of loose) {
    if (token.kind !== 'option') continue;
    if (token.name !== 'help' && token.name !== 'h' && !(token.name in spec.options)) {
      throw new UsageError(`"${name}" does not take ${token.rawName}.`, name);
    }
    if (seen.has(token.name)) throw new UsageError(`${token.rawName} is given twice.`, name);
    seen.add(token.name);
    const option = spec.options[token.name];
    // A value that looks like an option is taken for a forgotten value (write --label=-x to mean it).
    const missing = token.value === undefined || (!token.inlineValue && token.value.startsWith('-'));
    if (option?.type === 'string' && missing) throw new UsageError(`${token.rawName} needs a value: ${token.rawName} ${option.value}.`, name);
    if (option?.type === 'boolean' && token.value !== undefined) throw new UsageError(`${token.rawName} takes no value.`, name);
  }
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: { ...options, help: { type: 'boolean', short: 'h' } }, strict: true, allowPositionals: true });
  } catch (error) {
    // Whatever the first pass let through and the strict one does not (`-hx`): node's own words.
    throw new UsageError((error as Error).message, name);
  }
  const { values, positionals } = parsed;
  if (values.help) return { name: 'help', text: commandHelp(spec) };
  if (positionals.length < spec.args.length) throw new UsageError(spec.missing ?? `Give ${spec.args.join(' ')}.`, name);
  if (positionals.length > spec.args.length) {
    const extra = positionals.slice(spec.args.length).map((arg) => `"${arg}"`).join(' ');
    throw new UsageError(`"${name}" takes ${spec.args.length ? spec.args.join(' ') : 'no arguments'}; ${extra} is too many.`, name);
  }
  return spec.build(values, positionals, now);
}

/**
 * Reads the key tool's command line into a checked command, or throws a {@link UsageError}; reads nothing else, so
 * a mistake stops the tool before it opens any database. `now` dates the expiries asked for.
 * @example parseCommandLine(['keys', 'revoke', '3'], Date.now()) // { name: 'keys revoke', id: 3 }
 */
export function parseCommandLine(argv: string[], now: number): Command {
  const [group, command] = argv;
  if (group === undefined) throw new UsageError('Give a command.');
  if (group === '--help' || group === '-h') return { name: 'help', text: HELP };
  if (group === '--version' || group === '-v') {
    if (argv.length > 1) throw new UsageError(`${group} takes nothing after it.`);
    return { name: 'version' };
  }
  if (group === 'keys') {
    if (command === '--help' || command === '-h') return { name: 'help', text: HELP };
    if (command === undefined) throw new UsageError('Give a keys command: create, roll, list, deprecated, revoke or set-limits.');
    const name = `keys ${command}`;
    const spec = commands[name];
    if (!spec) throw new UsageError(`Unknown command "${name}".`);
    return parseCommand(name, spec, argv.slice(2), now);
  }
  if (group === 'domains') {
    if (command === '--help' || command === '-h') return { name: 'help', text: HELP };
    if (command === undefined) throw new UsageError('Give a domains command: add, verify, list, remove or redirect.');
    const name = `domains ${command}`;
    const spec = commands[name];
    if (!spec) throw new UsageError(`Unknown command "${name}".`);
    return parseCommand(name, spec, argv.slice(2), now);
  }
  if (group === 'webhooks') {
    if (command === '--help' || command === '-h') return { name: 'help', text: HELP };
    if (command === undefined) throw new UsageError('Give a webhooks command: list, deliveries or redeliver.');
    const name = `webhooks ${command}`;
    const spec = commands[name];
    if (!spec) throw new UsageError(`Unknown command "${name}".`);
    return parseCommand(name, spec, argv.slice(2), now);
  }
  const spec = Object.hasOwn(commands, group) && !group.includes(' ') ? commands[group] : undefined;
  if (!spec) throw new UsageError(`Unknown command "${group}".`);
  return parseCommand(group, spec, argv.slice(1), now);
}
