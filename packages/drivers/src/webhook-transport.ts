import http from 'node:http';
import https from 'node:https';
import { Resolver, lookup as systemLookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import {
  checkScheme,
  hostOf,
  type ResolvedAddress,
  type ResolveHost,
  resolveTarget,
  TargetRefusedError,
  type TargetRule,
  type WebhookTransport,
} from '@petstore/core';

/** The system's resolver (`getaddrinfo`, as `dns.lookup` with `all`): every address of a name. */
export const systemResolve: ResolveHost = (hostname) => systemLookup(hostname, { all: true, verbatim: true });

/**
 * A resolver that asks the given DNS servers (`ip` or `ip:port`, `[ipv6]:port`; `PETSTORE_DNS_SERVERS`) for a name's
 * A and AAAA records, instead of the system's: every address of either; a name with neither fails with the A query's
 * error. Each query times out after `timeoutMs` (default 2000, two tries), within a send's 15 s.
 * @example const resolve = serversResolve(['127.0.0.1:5353']); await resolve('hooks.example.test') // [{ address: '203.0.113.7', family: 4 }]
 */
export function serversResolve(servers: readonly string[], timeoutMs = 2000): ResolveHost {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  resolver.setServers([...servers]);
  return async (hostname) => {
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (addresses.length === 0 && v4.status === 'rejected') throw v4.reason;
    return addresses;
  };
}

/**
 * The transport of webhook deliveries: names resolved by `resolve` (else by the DNS `servers` given, else by the
 * system's resolver), and a sender, `node:http(s)` through agents of its own that keep connections alive, every new
 * connection resolving its host by the target rule (`lookup`, checked as it connects, so a name rebound to a private
 * address since registration is refused), no redirect followed (a 3xx is refused), the response's body drained and
 * discarded. `close()` ends its connections.
 * @example const transport = createWebhookTransport({ allowPrivate: false }); const status = await transport.send(sending)
 */
export function createWebhookTransport(options: {
  allowPrivate: boolean;
  resolve?: ResolveHost | undefined;
  /** DNS servers to ask instead of the system's resolver (`PETSTORE_DNS_SERVERS`); empty: the system's. */
  servers?: readonly string[] | undefined;
  maxSockets?: number | undefined;
}): WebhookTransport {
  const resolve = options.resolve ?? (options.servers?.length ? serversResolve(options.servers) : systemResolve);
  const rule: TargetRule = { allowPrivate: options.allowPrivate, resolve };
  const maxSockets = options.maxSockets ?? 16;
  const agents = { 'http:': new http.Agent({ keepAlive: true, maxSockets }), 'https:': new https.Agent({ keepAlive: true, maxSockets }) };
  const lookup: LookupFunction = (hostname, options, callback) => {
    resolveTarget(hostname, rule).then(
      (addresses) => {
        if (options.all) (callback as (error: null, all: ResolvedAddress[]) => void)(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: Error) => callback(error, '', 0),
    );
  };
  const send: WebhookTransport['send'] = async ({ url, headers, body, signal }) => {
    const target = new URL(url);
    checkScheme(target, rule);
    // A literal address connects without a lookup: checked here instead.
    if (isIP(hostOf(target))) await resolveTarget(hostOf(target), rule);
    const status = await new Promise<number>((resolve, reject) => {
      const request = (target.protocol === 'https:' ? https : http).request(target, {
        method: 'POST',
        agent: agents[target.protocol as 'http:' | 'https:'],
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        lookup,
        signal,
      });
      request.once('response', (response) => {
        response.resume();
        response.once('error', () => {});
        resolve(response.statusCode ?? 0);
      });
      request.once('error', reject);
      request.end(body);
    });
    if (status >= 300 && status < 400) throw new TargetRefusedError('redirect', `answered ${status}: redirects are not followed`);
    return status;
  };
  return {
    resolve,
    send,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
