import { CONFIGURED_API_KEY_RULE, PLAN_NAMES, isWellFormedApiKey, type PlanName } from '@petstore/core';
import type { ConfiguredApiKey, CorsOrigins, HostRedirect, TrustProxy } from '@petstore/embed';
import { compileTrust } from '@petstore/http';
import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';

const integer = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^[0-9]+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.int().min(min).max(max));

const fraction = z
  .string()
  .trim()
  .regex(/^(0(\.[0-9]+)?|1(\.0+)?|\.[0-9]+)$/, 'must be a number from 0 to 1, such as 0.98')
  .transform(Number);

const baseUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
  .refine((url) => new URL(url).pathname.replace(/\/+$/, '').endsWith('/v1'), 'must end in /v1')
  .transform((url) => url.replace(/\/+$/, ''));

function parseApiKeys(text: string, ctx: z.RefinementCtx): ConfiguredApiKey[] {
  const keys: ConfiguredApiKey[] = [];
  for (const [index, entry] of text.split(',').entries()) {
    if (!entry.trim()) continue;
    const [key = '', plan = '', perMinute, perDay, ...rest] = entry.trim().split(':');
    const where = `entry ${index + 1}`;
    if (!isWellFormedApiKey(key)) {
      ctx.addIssue({ code: 'custom', message: `${where}: the key ${CONFIGURED_API_KEY_RULE}` });
    } else if (!(PLAN_NAMES as readonly string[]).includes(plan)) {
      ctx.addIssue({ code: 'custom', message: `${where}: plan must be one of ${PLAN_NAMES.join(', ')}` });
    } else if (rest.length || ((perMinute !== undefined || perDay !== undefined) && plan !== 'enterprise')) {
      ctx.addIssue({ code: 'custom', message: `${where}: only an enterprise key may add limits, as KEY:enterprise:PER_MINUTE:PER_DAY` });
    } else if (perMinute !== undefined) {
      const limits = [perMinute, perDay].map((v) => (/^[1-9][0-9]{0,9}$/.test(v ?? '') ? Number(v) : NaN));
      if (limits.some((n) => !(n <= 2_147_483_647))) {
        ctx.addIssue({ code: 'custom', message: `${where}: PER_MINUTE and PER_DAY must both be whole numbers from 1` });
      } else {
        keys.push({ key, plan: plan as PlanName, limits: { perMinute: limits[0]!, perDay: limits[1]! } });
      }
    } else {
      keys.push({ key, plan: plan as PlanName });
    }
  }
  return keys;
}

function parseRedirects(text: string, ctx: z.RefinementCtx): HostRedirect[] {
  const redirects: HostRedirect[] = [];
  for (const [index, entry] of text.split(',').entries()) {
    if (!entry.trim()) continue;
    const match = /^([a-z0-9.-]+)=([a-z0-9.-]+(?::[0-9]{1,5})?)(?:@(301|308))?$/i.exec(entry.trim());
    if (!match) {
      ctx.addIssue({ code: 'custom', message: `entry ${index + 1}: write SOURCE_HOST=TARGET_HOST[@301|@308], e.g. old.example.com=api.example.com@308` });
    } else {
      redirects.push({ from: match[1]!.toLowerCase(), to: match[2]!.toLowerCase(), status: match[3] === '308' ? 308 : 301 });
    }
  }
  return redirects;
}

/** `false`, `true` (one proxy), a hop count, or a comma list of proxy addresses and subnets (proxy-addr's forms). */
function parseTrustProxy(text: string, ctx: z.RefinementCtx): TrustProxy {
  const value = text.trim().toLowerCase();
  if (value === 'false' || value === '0') return false;
  if (value === 'true') return true;
  if (/^[0-9]{1,3}$/.test(value)) return Number(value);
  const list = value.split(',').map((entry) => entry.trim()).filter(Boolean);
  try {
    compileTrust(list);
  } catch (error) {
    ctx.addIssue({
      code: 'custom',
      message: `write false, true, a number of proxy hops, or a comma list of proxy addresses and subnets (${(error as Error).message})`,
    });
    return false;
  }
  return list;
}

/** A comma list of DNS resolvers, each an IP address with an optional port (`127.0.0.1:5353`, `[::1]:53`). */
function parseDnsServers(text: string, ctx: z.RefinementCtx): string[] {
  const servers = text.split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const server of servers) {
    const address = server.startsWith('[') ? /^\[([0-9a-f:.]+)\](?::[0-9]{1,5})?$/i.exec(server)?.[1] : /^([0-9.]+)(?::[0-9]{1,5})?$|^([0-9a-f:]+)$/i.exec(server)?.slice(1).find(Boolean);
    if (address === undefined || isIP(address) === 0) {
      ctx.addIssue({ code: 'custom', message: `"${server}" is not a resolver: write an IP address with an optional port, e.g. 127.0.0.1:5353 or [::1]:53` });
    }
  }
  return servers;
}

/** The waits before each webhook retry: milliseconds, comma-separated (`5000,300000`), each from 1 ms to 7 days. */
function parseRetrySchedule(text: string, ctx: z.RefinementCtx): number[] {
  const waits = text.split(',').map((entry) => entry.trim());
  for (const wait of waits) {
    if (!/^[0-9]{1,10}$/.test(wait) || Number(wait) < 1 || Number(wait) > 7 * 86_400_000) {
      ctx.addIssue({ code: 'custom', message: `"${wait}" is not a wait: write milliseconds from 1 to 604800000, comma-separated, e.g. 5000,300000` });
    }
  }
  return waits.map(Number);
}

/** `*` (any origin, the default), `false` (none), or a comma list of origins (`https://app.example.com`). */
function parseCorsOrigins(text: string, ctx: z.RefinementCtx): CorsOrigins {
  const value = text.trim();
  if (value === '*') return '*';
  if (value.toLowerCase() === 'false') return false;
  const origins: string[] = [];
  for (const entry of value.split(',').map((each) => each.trim()).filter(Boolean)) {
    let origin: string | undefined;
    try {
      const url = new URL(entry);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin === entry.replace(/\/+$/, '')) origin = url.origin;
    } catch {
      origin = undefined;
    }
    if (origin === undefined) {
      ctx.addIssue({ code: 'custom', message: `"${entry}" is not an origin: write scheme://host[:port], e.g. https://app.example.com` });
    } else {
      origins.push(origin);
    }
  }
  return origins;
}

/**
 * A memory guard, not a throughput limit: requests waiting on the network (the database, PgBouncer, Redis) cost
 * memory, not CPU, so a burst of them is served, never refused with 503 (DECISIONS: 75 at once on a free key get
 * 60 answers and 15 429s). Each holds at most a 64 KiB body.
 */
const DEFAULT_MAX_CONCURRENT = 1024;
/**
 * Shedding on the event loop's measured delay is off by default: a process starved by its neighbours (a busy shared
 * host, a test runner beside it) or run under a faked clock measures long delays while it could still serve. An
 * operator who owns the machine turns it on (500 ms: every request then already waits that long to be looked at).
 */
const DEFAULT_SHED_LAG_MS = 0;

const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

/** The environment the service reads, validated in one place. */
const Environment = z.object({
  PORT: z.preprocess(unsetIfEmpty, integer(0, 65535).default(3000)),
  HOST: z.preprocess(unsetIfEmpty, z.string().default('127.0.0.1')),
  DATABASE_URL: z.preprocess(
    unsetIfEmpty,
    z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
  ),
  PETSTORE_DATA_DIR: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .refine((dir) => dir === 'memory://' || !dir.includes('://'), 'must be a folder path or memory://')
      .optional(),
  ),
  PETSTORE_API_KEYS: z.preprocess(unsetIfEmpty, z.string().transform(parseApiKeys).default([])),
  PETSTORE_RATE_LIMIT_STORE: z.preprocess(unsetIfEmpty, z.enum(['memory', 'postgres', 'redis']).optional()),
  REDIS_URL: z.preprocess(
    unsetIfEmpty,
    z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
  ),
  PETSTORE_REDIS_KEY_PREFIX: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1 to 64 letters, digits, "_", "." or "-"')
      .default('petstore'),
  ),
  PETSTORE_PUBLIC_URL: z.preprocess(unsetIfEmpty, baseUrl.optional()),
  PETSTORE_STAGING_URL: z.preprocess(unsetIfEmpty, baseUrl.optional()),
  PETSTORE_TRUST_PROXY: z.preprocess(unsetIfEmpty, z.string().transform(parseTrustProxy).default(false)),
  PETSTORE_REDIRECTS: z.preprocess(unsetIfEmpty, z.string().transform(parseRedirects).default([])),
  PETSTORE_CORS_ORIGINS: z.preprocess(unsetIfEmpty, z.string().transform(parseCorsOrigins).default('*')),
  PETSTORE_METRICS_PORT: z.preprocess(unsetIfEmpty, integer(0, 65535).optional()),
  // Not HOST: an API on 0.0.0.0 keeps its metrics (and the certificate ask) on loopback unless told otherwise.
  PETSTORE_METRICS_HOST: z.preprocess(unsetIfEmpty, z.string().trim().min(1).default('127.0.0.1')),
  // The user's private runtime folder (systemd's /run/user/UID), for the admin channel; the XDG rule: a relative
  // path is ignored.
  XDG_RUNTIME_DIR: z.preprocess(unsetIfEmpty, z.string().optional()),
  // Where the service notes the data folder it last served (to warn when an upgrade opens an empty one elsewhere).
  XDG_STATE_HOME: z.preprocess(unsetIfEmpty, z.string().optional()),
  PETSTORE_PLATFORM_HOST: z.preprocess(
    unsetIfEmpty,
    z
      .string()
      .trim()
      .toLowerCase()
      .transform((host) => host.replace(/\.$/, ''))
      .pipe(z.string().regex(/^(?!-)[a-z0-9-]{1,63}(?:\.(?!-)[a-z0-9-]{1,63})+$/, 'must be a host name such as edge.petstore.dev'))
      .optional(),
  ),
  PETSTORE_DNS_SERVERS: z.preprocess(unsetIfEmpty, z.string().transform(parseDnsServers).default([])),
  PETSTORE_LOG_LEVEL: z.preprocess(
    unsetIfEmpty,
    z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ),
  PETSTORE_BAN_THRESHOLD: z.preprocess(unsetIfEmpty, integer(1, 1_000_000).default(10)),
  PETSTORE_BAN_SECONDS: z.preprocess(unsetIfEmpty, integer(1, 86_400 * 7).default(900)),
  PETSTORE_ADDRESS_LIMIT_PER_MINUTE: z.preprocess(unsetIfEmpty, integer(1, 1_000_000).default(60)),
  PETSTORE_MAX_CONCURRENT_REQUESTS: z.preprocess(unsetIfEmpty, integer(0, 1_000_000).default(DEFAULT_MAX_CONCURRENT)),
  PETSTORE_SHED_LAG_MS: z.preprocess(unsetIfEmpty, integer(0, 60_000).default(DEFAULT_SHED_LAG_MS)),
  PETSTORE_SHED_UTILIZATION: z.preprocess(unsetIfEmpty, fraction.default(0)),
  PETSTORE_DRAIN_MS: z.preprocess(unsetIfEmpty, integer(0, 600_000).default(1_000)),
  PETSTORE_USAGE_RETENTION_DAYS: z.preprocess(unsetIfEmpty, integer(1, 36_500).default(400)),
  // Tuning and test knobs (docs/configuration.md): the production defaults are DECISIONS'.
  PETSTORE_BODY_TIMEOUT_MS: z.preprocess(unsetIfEmpty, integer(1, 600_000).default(10_000)),
  PETSTORE_WRITE_TIMEOUT_MS: z.preprocess(unsetIfEmpty, integer(1, 600_000).default(10_000)),
  PETSTORE_LINGER_MS: z.preprocess(unsetIfEmpty, integer(0, 60_000).default(1_000)),
  PETSTORE_WEBHOOK_RETRY_SCHEDULE_MS: z.preprocess(unsetIfEmpty, z.string().transform(parseRetrySchedule).optional()),
  PETSTORE_WEBHOOKS_ALLOW_PRIVATE: z.preprocess(unsetIfEmpty, z.enum(['true', 'false']).default('false')),
  // Longer than a send may take (15 s, DNS included), so that no instance takes a delivery another is still sending.
  PETSTORE_WEBHOOK_LEASE_MS: z.preprocess(unsetIfEmpty, integer(20_000, 86_400_000).optional()),
  PETSTORE_HEALTH_CACHE_MS: z.preprocess(unsetIfEmpty, integer(0, 60_000).default(1_000)),
});

/** The service's configuration. */
export type Config = ReturnType<typeof toConfig>;

/** The embedded database's folder when PETSTORE_DATA_DIR is unset: relative to the working directory. */
export const DEFAULT_DATA_DIR = './.petstore-data';

function toConfig(env: z.output<typeof Environment>) {
  const localUrl = `http://${env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST}:${env.PORT}/v1`;
  if (env.PETSTORE_RATE_LIMIT_STORE === 'postgres' && !env.DATABASE_URL) {
    throw new ConfigError(['PETSTORE_RATE_LIMIT_STORE: postgres needs DATABASE_URL (the embedded database uses memory)']);
  }
  if (env.PETSTORE_RATE_LIMIT_STORE === 'redis' && !env.REDIS_URL) {
    throw new ConfigError(['REDIS_URL: PETSTORE_RATE_LIMIT_STORE=redis needs REDIS_URL (redis://host:6379)']);
  }
  if (env.PETSTORE_METRICS_PORT !== undefined && env.PETSTORE_METRICS_PORT !== 0 && env.PETSTORE_METRICS_PORT === env.PORT) {
    throw new ConfigError(['PETSTORE_METRICS_PORT: must differ from PORT; the API port never serves metrics']);
  }
  return Object.freeze({
    port: env.PORT,
    host: env.HOST,
    databaseUrl: env.DATABASE_URL,
    dataDir: env.PETSTORE_DATA_DIR ?? DEFAULT_DATA_DIR,
    dataDirIsFolder: env.PETSTORE_DATA_DIR !== 'memory://' && !env.DATABASE_URL,
    /** Whether PETSTORE_DATA_DIR was unset, so the data folder is the working directory's `.petstore-data`. */
    dataDirIsDefault: env.PETSTORE_DATA_DIR === undefined,
    /** The user's state folder (`$XDG_STATE_HOME`, else `~/.local/state`), where the last data folder is noted. */
    stateDir: env.XDG_STATE_HOME !== undefined && isAbsolute(env.XDG_STATE_HOME) ? env.XDG_STATE_HOME : join(homedir(), '.local', 'state'),
    apiKeys: env.PETSTORE_API_KEYS,
    rateLimitStore: env.PETSTORE_RATE_LIMIT_STORE ?? (env.DATABASE_URL ? 'postgres' : 'memory'),
    /** Read only with the redis store. */
    redisUrl: env.PETSTORE_RATE_LIMIT_STORE === 'redis' ? env.REDIS_URL : undefined,
    redisKeyPrefix: env.PETSTORE_REDIS_KEY_PREFIX,
    /** Configured production base address; unset: each request's own address (`http://HOST:PORT/v1` locally). */
    publicUrl: env.PETSTORE_PUBLIC_URL,
    stagingUrl: env.PETSTORE_STAGING_URL,
    localUrl,
    trustProxy: env.PETSTORE_TRUST_PROXY,
    redirects: env.PETSTORE_REDIRECTS,
    /** Origins allowed to call from a browser: `*`, `false`, or a list. */
    corsOrigins: env.PETSTORE_CORS_ORIGINS,
    /** Port of the metrics listener; undefined: no metrics listener. */
    metricsPort: env.PETSTORE_METRICS_PORT,
    /** Address of the metrics listener: loopback unless told, whatever HOST is. */
    metricsHost: env.PETSTORE_METRICS_HOST,
    /** Where the admin channel's private folder goes first (`$XDG_RUNTIME_DIR`); else it is under the data folder. */
    runtimeDir: env.XDG_RUNTIME_DIR !== undefined && isAbsolute(env.XDG_RUNTIME_DIR) ? env.XDG_RUNTIME_DIR : undefined,
    /** The host custom domains must point at (CNAME, or ALIAS/ANAME at the apex); undefined: domains cannot be verified. */
    platformHost: env.PETSTORE_PLATFORM_HOST,
    /** Resolvers for verifying custom domains (`ip` or `ip:port`); empty: the system's. */
    dnsServers: env.PETSTORE_DNS_SERVERS,
    logLevel: env.PETSTORE_LOG_LEVEL,
    /** In-flight requests past which the excess gets 503 `unavailable` with `Retry-After: 1` (a memory guard); 0: no limit. */
    maxConcurrentRequests: env.PETSTORE_MAX_CONCURRENT_REQUESTS,
    /** Mean event-loop delay (ms, over the last second) past which requests get that 503; 0: never. */
    shedLagMs: env.PETSTORE_SHED_LAG_MS,
    /** Event-loop utilisation (0 to 1, over the last second) past which requests get that 503; 0: never. */
    shedUtilization: env.PETSTORE_SHED_UTILIZATION,
    /** After SIGTERM: how long open connections are still served, each response closing its connection. */
    drainMs: env.PETSTORE_DRAIN_MS,
    /**
     * Webhooks: the waits before each retry (DECISIONS' 5 s … 10 h when unset), how long an instance holds a delivery
     * it took before another may take it (60 s when unset), and whether private targets are allowed.
     */
    webhooks: {
      retryScheduleMs: env.PETSTORE_WEBHOOK_RETRY_SCHEDULE_MS,
      leaseMs: env.PETSTORE_WEBHOOK_LEASE_MS,
      allowPrivate: env.PETSTORE_WEBHOOKS_ALLOW_PRIVATE === 'true',
    },
    /** UTC days the usage ledger keeps, today included. */
    usageRetentionDays: env.PETSTORE_USAGE_RETENTION_DAYS,
    /** How long a request body may take to arrive after its headers (else 408 and the connection closes), in ms. */
    bodyTimeoutMs: env.PETSTORE_BODY_TIMEOUT_MS,
    /** How long a written response may wait for its client to take it before the connection closes, in ms. */
    writeTimeoutMs: env.PETSTORE_WRITE_TIMEOUT_MS,
    /** After an answer that left a body unread: how long the connection still takes (and drops) the client's bytes. */
    lingerMs: env.PETSTORE_LINGER_MS,
    /** How long `/healthz` answers from its last check of the dependencies, in ms (one check at a time either way). */
    healthCacheMs: env.PETSTORE_HEALTH_CACHE_MS,
    quota: {
      banThreshold: env.PETSTORE_BAN_THRESHOLD,
      banSeconds: env.PETSTORE_BAN_SECONDS,
      perAddressPerMinute: env.PETSTORE_ADDRESS_LIMIT_PER_MINUTE,
    },
  } as const);
}

/** A configuration that cannot be used; its message names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Reads and validates the configuration from the environment; throws a ConfigError naming every bad value.
 * @example const config = loadConfig(process.env)
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const result = Environment.safeParse(env);
  if (!result.success) {
    throw new ConfigError(result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  return toConfig(result.data);
}

