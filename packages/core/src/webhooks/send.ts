import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { checkScheme, hostOf, type ResolvedAddress, resolveTarget, TargetRefusedError, type TargetRule } from './targets.js';

/** One POST of a delivery. */
export interface Sending {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Aborts the send: its time is up (15 s, DNS included), or the instance stops. */
  signal: AbortSignal;
}

/** Posts a delivery; answers the response's status, or throws (a refused target as {@link TargetRefusedError}). */
export type SendDelivery = (sending: Sending) => Promise<number>;

/**
 * The sender of webhook deliveries: `node:http(s)` through agents of its own that keep connections alive, every new
 * connection resolving its host by the target rule (`lookup`, checked as it connects, so a name rebound to a private
 * address since registration is refused), no redirect followed (a 3xx is refused), the response's body drained and
 * discarded. `close()` ends its connections.
 * @example const sender = createSender({ allowPrivate: false }, 16); const status = await sender.send(sending)
 */
export function createSender(rule: TargetRule, maxSockets: number): { send: SendDelivery; close(): void } {
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
  const send: SendDelivery = async ({ url, headers, body, signal }) => {
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
    send,
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}
