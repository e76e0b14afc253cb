import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';

const problemsOf = (env: Record<string, string>) => {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  return expect.unreachable('expected a ConfigError');
};

describe('the configuration', () => {
  it('defaults to 127.0.0.1:3000 on the embedded database with the memory limiter', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      dataDir: './.petstore-data',
      rateLimitStore: 'memory',
      publicUrl: undefined,
      stagingUrl: undefined,
      localUrl: 'http://127.0.0.1:3000/v1',
      trustProxy: false,
      redirects: [],
      metricsPort: undefined,
      apiKeys: [],
    });
  });

  it('keeps 1024 requests in flight as a memory guard, sheds on the event loop only when asked, and drains for 1 s by default', () => {
    expect(loadConfig({})).toMatchObject({ maxConcurrentRequests: 1024, shedLagMs: 0, shedUtilization: 0, drainMs: 1_000 });
    expect(loadConfig({ PETSTORE_MAX_CONCURRENT_REQUESTS: '0', PETSTORE_SHED_LAG_MS: '150', PETSTORE_DRAIN_MS: '5000' })).toMatchObject({
      maxConcurrentRequests: 0,
      shedLagMs: 150,
      drainMs: 5_000,
    });
    expect(loadConfig({ PETSTORE_SHED_UTILIZATION: '0.98' })).toMatchObject({ shedUtilization: 0.98 });
    const message = problemsOf({ PETSTORE_MAX_CONCURRENT_REQUESTS: '-1', PETSTORE_SHED_LAG_MS: 'fast', PETSTORE_SHED_UTILIZATION: '1.5', PETSTORE_DRAIN_MS: '1e3' });
    for (const name of ['PETSTORE_MAX_CONCURRENT_REQUESTS', 'PETSTORE_SHED_LAG_MS', 'PETSTORE_SHED_UTILIZATION', 'PETSTORE_DRAIN_MS']) expect(message).toContain(`${name}:`);
  });

  it('uses the postgres limiter by default with DATABASE_URL', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db' });
    expect(config.rateLimitStore).toBe('postgres');
  });

  it('parses PETSTORE_API_KEYS with plans and enterprise limits', () => {
    const config = loadConfig({
      PETSTORE_API_KEYS: 'free-key-0123456789:free, ent-key-0123456789abc:enterprise:5:7,pro-key-0123456789:pro',
    });
    expect(config.apiKeys).toEqual([
      { key: 'free-key-0123456789', plan: 'free' },
      { key: 'ent-key-0123456789abc', plan: 'enterprise', limits: { perMinute: 5, perDay: 7 } },
      { key: 'pro-key-0123456789', plan: 'pro' },
    ]);
  });

  it('stops with a message naming every bad value', () => {
    const message = problemsOf({
      PORT: 'eighty',
      DATABASE_URL: 'mysql://x',
      PETSTORE_API_KEYS: 'short:free,long-enough-key-123:gold,another-long-key-1:free:5:5',
      PETSTORE_PUBLIC_URL: 'https://api.example.com/v2',
      PETSTORE_RATE_LIMIT_STORE: 'redis-cluster',
      PETSTORE_TRUST_PROXY: 'maybe',
    });
    expect(message).toMatch(/^Invalid configuration:/);
    for (const name of ['PORT', 'DATABASE_URL', 'PETSTORE_PUBLIC_URL', 'PETSTORE_RATE_LIMIT_STORE', 'PETSTORE_TRUST_PROXY']) {
      expect(message).toContain(`${name}:`);
    }
    expect(message).toContain('entry 1: the key must be 16 to 255');
    expect(message).toContain('entry 2: plan must be one of free, pro, business, enterprise');
    expect(message).toContain('entry 3: only an enterprise key may add limits');
  });

  it('says why a key that starts with psk_ but was not made by the key tool is refused', () => {
    expect(problemsOf({ PETSTORE_API_KEYS: 'psk_my-own-key-of-any-length:enterprise' })).toContain(
      'entry 1: the key must be 16 to 255 visible ASCII characters other than ":" and ","; one starting with "psk_" must be a key made by the key tool',
    );
  });

  it('reads PETSTORE_TRUST_PROXY as false, true, a hop count or a list of proxies, and refuses anything else', () => {
    expect(loadConfig({ PETSTORE_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ PETSTORE_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ PETSTORE_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ PETSTORE_TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toEqual(['loopback', '10.0.0.0/8']);
    expect(problemsOf({ PETSTORE_TRUST_PROXY: '10.0.0.0/99' })).toContain('PETSTORE_TRUST_PROXY:');
  });

  it('puts metrics on a port of their own, never the API port', () => {
    expect(loadConfig({ PETSTORE_METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(problemsOf({ PORT: '3000', PETSTORE_METRICS_PORT: '3000' })).toContain('PETSTORE_METRICS_PORT:');
  });

  it('refuses the postgres limiter without PostgreSQL', () => {
    expect(problemsOf({ PETSTORE_RATE_LIMIT_STORE: 'postgres' })).toContain('postgres needs DATABASE_URL');
  });

  it('uses the redis limiter at REDIS_URL, on either database', () => {
    for (const url of ['redis://127.0.0.1:6379', 'rediss://:secret@cache.example.com:6380/2']) {
      expect(loadConfig({ PETSTORE_RATE_LIMIT_STORE: 'redis', REDIS_URL: url })).toMatchObject({
        rateLimitStore: 'redis',
        redisUrl: url,
        redisKeyPrefix: 'petstore',
      });
    }
    const shared = loadConfig({
      DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
      PETSTORE_RATE_LIMIT_STORE: 'redis',
      REDIS_URL: 'redis://127.0.0.1:6379',
      PETSTORE_REDIS_KEY_PREFIX: 'staging',
    });
    expect(shared).toMatchObject({ rateLimitStore: 'redis', redisKeyPrefix: 'staging' });
  });

  it('refuses the redis limiter without REDIS_URL, naming the variable', () => {
    expect(problemsOf({ PETSTORE_RATE_LIMIT_STORE: 'redis' })).toMatch(/REDIS_URL: .*needs REDIS_URL/);
    expect(problemsOf({ PETSTORE_RATE_LIMIT_STORE: 'redis', REDIS_URL: '' })).toContain('REDIS_URL:');
  });

  it('refuses a REDIS_URL that is not redis:// or rediss://, and a bad key prefix', () => {
    for (const url of ['http://127.0.0.1:6379', '127.0.0.1:6379', 'valkey://x']) {
      expect(problemsOf({ PETSTORE_RATE_LIMIT_STORE: 'redis', REDIS_URL: url })).toContain(
        'REDIS_URL: must be a redis:// or rediss:// URL',
      );
    }
    expect(problemsOf({ PETSTORE_REDIS_KEY_PREFIX: 'a b' })).toContain('PETSTORE_REDIS_KEY_PREFIX:');
  });

  it('keeps the default limiter when REDIS_URL is set without the redis store', () => {
    expect(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' })).toMatchObject({ rateLimitStore: 'memory', redisUrl: undefined });
  });

  it('parses host redirects with 301 by default and 308 on request', () => {
    const config = loadConfig({ PETSTORE_REDIRECTS: 'Old.Example.com=api.example.com, pets.example.org=api.example.com:8443@308' });
    expect(config.redirects).toEqual([
      { from: 'old.example.com', to: 'api.example.com', status: 301 },
      { from: 'pets.example.org', to: 'api.example.com:8443', status: 308 },
    ]);
    expect(problemsOf({ PETSTORE_REDIRECTS: 'old.example.com=>new.example.com' })).toContain('PETSTORE_REDIRECTS: entry 1');
  });

  it('reads the platform host of custom domains and the resolvers that verify them, with ports', () => {
    const config = loadConfig({ PETSTORE_PLATFORM_HOST: 'Edge.Petstore.dev.', PETSTORE_DNS_SERVERS: '127.0.0.1:5353, 1.1.1.1,[::1]:53,2001:db8::1' });
    expect(config.platformHost).toBe('edge.petstore.dev');
    expect(config.dnsServers).toEqual(['127.0.0.1:5353', '1.1.1.1', '[::1]:53', '2001:db8::1']);
    expect(loadConfig({})).toMatchObject({ platformHost: undefined, dnsServers: [] });
    expect(problemsOf({ PETSTORE_PLATFORM_HOST: 'https://edge.petstore.dev' })).toContain('PETSTORE_PLATFORM_HOST');
    expect(problemsOf({ PETSTORE_DNS_SERVERS: 'dns.example.com' })).toContain('PETSTORE_DNS_SERVERS');
    expect(problemsOf({ PETSTORE_DNS_SERVERS: '999.1.1.1:53' })).toContain('PETSTORE_DNS_SERVERS');
  });

  it("reads the webhook lease, longer than a send's 15 s", () => {
    expect(loadConfig({}).webhooks.leaseMs).toBeUndefined();
    expect(loadConfig({ PETSTORE_WEBHOOK_LEASE_MS: '20000' }).webhooks.leaseMs).toBe(20_000);
    expect(problemsOf({ PETSTORE_WEBHOOK_LEASE_MS: '15000' })).toContain('PETSTORE_WEBHOOK_LEASE_MS');
  });

  it('takes base addresses that end in /v1 and drops a trailing slash', () => {
    const config = loadConfig({ PETSTORE_PUBLIC_URL: 'https://pets.example.com/v1/', PETSTORE_STAGING_URL: 'https://staging.example.com/api/v1' });
    expect(config.publicUrl).toBe('https://pets.example.com/v1');
    expect(config.stagingUrl).toBe('https://staging.example.com/api/v1');
  });
});
