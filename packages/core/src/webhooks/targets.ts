import ipaddr from 'ipaddr.js';
import { isPublicAddress } from './address-rule.js';

/** Why a webhook target was refused: its scheme, an address it has or resolves to, its name not resolving, a redirect. */
export type RefusalReason = 'scheme' | 'address' | 'dns' | 'redirect';

/** A webhook target the rule refuses (DECISIONS "Events": no requests into private networks). */
export class TargetRefusedError extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
    this.name = 'TargetRefusedError';
  }
}

/** An address a name resolves to. */
export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address it has (`@petstore/drivers` gives the system's, as `dns.lookup` with `all`). */
export type ResolveHost = (hostname: string) => Promise<ResolvedAddress[]>;

/** The rule webhook targets follow, and how names are resolved. */
export interface TargetRule {
  /** `PETSTORE_WEBHOOKS_ALLOW_PRIVATE`: allow `http://`, and private and loopback addresses (development, tests). */
  readonly allowPrivate: boolean;
  /** How names are resolved; without it only literal addresses can be checked, and a name is refused. */
  readonly resolve?: ResolveHost | undefined;
}

/** The IP family of a literal address (4 or 6), or 0 for a name. */
export const familyOf = (host: string): number => (ipaddr.IPv4.isValidFourPartDecimal(host) ? 4 : ipaddr.IPv6.isValid(host) ? 6 : 0);

/** The host of a URL as the resolver and `isIP` take it (an IPv6 literal without its brackets). */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Refuses a URL whose scheme the rule does not allow. */
export function checkScheme(url: URL, rule: TargetRule): void {
  if (url.protocol === 'https:' || (rule.allowPrivate && url.protocol === 'http:')) return;
  throw new TargetRefusedError('scheme', `must be an https:// URL, not ${url.protocol}//`);
}

/**
 * The addresses a target's host may be reached at: the literal itself, or everything its name resolves to, each
 * public (one that is not refuses the name: a client could reach any of them). Everything goes under `allowPrivate`.
 * @example await resolveTarget('api.example.com', { allowPrivate: false }) // [{ address: '93.184.215.14', family: 4 }]
 */
export async function resolveTarget(host: string, rule: TargetRule): Promise<ResolvedAddress[]> {
  const family = familyOf(host);
  if (!family && !rule.resolve) throw new TargetRefusedError('dns', `${host} cannot be checked: this store resolves no names`);
  const addresses = family
    ? [{ address: host, family }]
    : await rule.resolve!(host).catch((error: unknown) => {
        throw new TargetRefusedError('dns', `${host} does not resolve (${(error as { code?: string }).code ?? 'no answer'})`);
      });
  if (addresses.length === 0) throw new TargetRefusedError('dns', `${host} does not resolve`);
  if (rule.allowPrivate) return addresses;
  const inside = addresses.find(({ address }) => !isPublicAddress(address));
  if (inside) {
    throw new TargetRefusedError('address', `${host === inside.address ? host : `${host} resolves to ${inside.address}, which`} is not a public address`);
  }
  return addresses;
}

/**
 * Checks a webhook URL at registration: its scheme, and that its host has only public addresses now. Each delivery
 * checks again as it connects (a name may be rebound to another address meanwhile).
 */
export async function checkTarget(url: string, rule: TargetRule): Promise<void> {
  const parsed = new URL(url);
  checkScheme(parsed, rule);
  await resolveTarget(hostOf(parsed), rule);
}
