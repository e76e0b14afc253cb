import { Resolver } from 'node:dns/promises';
import type { DnsCheck, DnsVerdict } from '@petstore/core';
import { isApexDomain } from './apex-domain.js';

/** Where the check looks. */
export interface DnsCheckOptions {
  /** The host custom domains must point at (`PETSTORE_PLATFORM_HOST`). */
  platformHost: string;
  /** Resolvers as `ip` or `ip:port` (`[ipv6]:port`); the system's when empty or absent. */
  servers?: readonly string[] | undefined;
  /** Per-query timeout; default 2000 ms, two tries. */
  timeoutMs?: number | undefined;
}

const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND', 'ENONAME', 'NOTFOUND', 'NODATA']);

class LookupFailed extends Error {}

const canonical = (name: string) => name.toLowerCase().replace(/\.$/, '');

/**
 * The DNS rule of DECISIONS "Custom domains while running": a subdomain needs a CNAME to the platform host and no
 * address records of its own; an apex domain must resolve to the platform host's addresses. A conflicting record is
 * named in the reason.
 * @example const check = createDnsCheck({ platformHost: 'edge.petstore.dev', servers: ['127.0.0.1:5353'] }); await check('api.example.com')
 */
export function createDnsCheck(options: DnsCheckOptions): DnsCheck {
  const platform = canonical(options.platformHost);
  const resolver = new Resolver({ timeout: options.timeoutMs ?? 2000, tries: 2 });
  if (options.servers && options.servers.length > 0) resolver.setServers([...options.servers]);

  const query = async <T>(lookup: () => Promise<T[]>): Promise<T[]> => {
    try {
      return await lookup();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EUNKNOWN';
      if (NO_RECORD.has(code)) return [];
      throw new LookupFailed(`the DNS lookup failed (${code})`);
    }
  };
  const addresses = async (name: string) => {
    const [v4, v6] = await Promise.all([query(() => resolver.resolve4(name)), query(() => resolver.resolve6(name))]);
    return [...v4, ...v6];
  };

  async function checkSubdomain(name: string): Promise<DnsVerdict> {
    const cnames = (await query(() => resolver.resolveCname(name))).map(canonical);
    const own = await addresses(name);
    if (cnames.length === 0) {
      if (own.length > 0) {
        return { ok: false, reason: `${name} has an address record (${own.join(', ')}) instead of a CNAME to ${platform}: remove it and add the CNAME` };
      }
      return { ok: false, reason: `${name} has no CNAME record: add ${name} CNAME ${platform}` };
    }
    if (!cnames.includes(platform)) {
      return { ok: false, reason: `${name} has a CNAME to ${cnames.join(', ')}, not to ${platform}` };
    }
    const platformAddresses = new Set(await addresses(platform));
    const foreign = own.filter((address) => !platformAddresses.has(address));
    if (foreign.length > 0) {
      return { ok: false, reason: `${name} has an address record (${foreign.join(', ')}) beside its CNAME to ${platform}: remove it` };
    }
    return { ok: true, found: `CNAME ${platform}` };
  }

  async function checkApex(name: string): Promise<DnsVerdict> {
    const [own, platformAddresses] = await Promise.all([addresses(name), addresses(platform)]);
    if (platformAddresses.length === 0) return { ok: false, reason: `the platform host ${platform} does not resolve` };
    if (own.length === 0) {
      return { ok: false, reason: `${name} does not resolve: point its ALIAS/ANAME record at ${platform}` };
    }
    const expected = new Set(platformAddresses);
    const foreign = own.filter((address) => !expected.has(address));
    if (foreign.length > 0) {
      return {
        ok: false,
        reason: `${name} resolves to ${foreign.join(', ')}, which ${platform} does not (${platformAddresses.join(', ')}): point its ALIAS/ANAME record at ${platform}`,
      };
    }
    return { ok: true, found: `the addresses of ${platform} (${own.join(', ')})` };
  }

  return async (name) => {
    try {
      return await ((await isApexDomain(name)) ? checkApex(name) : checkSubdomain(name));
    } catch (error) {
      if (error instanceof LookupFailed) return { ok: false, reason: error.message };
      throw error;
    }
  };
}
