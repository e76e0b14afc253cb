import proxyaddr from 'proxy-addr';

/**
 * Who may tell the service a client's address, scheme and host (`PETSTORE_TRUST_PROXY`): `false`, nobody; `true`,
 * the one proxy in front (a hop count of 1); a number of proxy hops; or proxy addresses and subnets, as a list or a
 * comma-separated string (`loopback`, `10.0.0.0/8`, `::1`).
 * @example const trust: TrustProxy = ['127.0.0.1', '10.0.0.0/8']
 */
export type TrustProxy = boolean | number | string | readonly string[];

/** Whether the hop at `address`, `hop` steps from this server (0: the socket's peer), is a trusted proxy. */
export type TrustFunction = (address: string, hop: number) => boolean;

const TRUST_NOBODY: TrustFunction = () => false;

/**
 * The trust function of `proxy-addr` for a {@link TrustProxy} setting. Unlike Express, `true` trusts one hop only, so
 * the address is the one that proxy appended, never one the client wrote.
 * @example compileTrust(1)('10.0.0.7', 0) // true: the peer is the proxy
 */
export function compileTrust(trust: TrustProxy = false): TrustFunction {
  if (trust === false) return TRUST_NOBODY;
  if (trust === true) return (_address, hop) => hop < 1;
  if (typeof trust === 'number') {
    if (!Number.isSafeInteger(trust) || trust < 0) throw new RangeError(`A proxy hop count must be a whole number, not ${trust}.`);
    return (_address, hop) => hop < trust;
  }
  const list = (typeof trust === 'string' ? trust.split(',') : [...trust]).map((entry) => entry.trim()).filter(Boolean);
  return list.length === 0 ? TRUST_NOBODY : proxyaddr.compile(list);
}
