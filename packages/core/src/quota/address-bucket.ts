import ipaddr from 'ipaddr.js';

/**
 * The bucket a client address is counted in by the per-address limits: an IPv4 address as it is (an IPv4-mapped IPv6
 * address, as a dual-stack listener reports IPv4 clients, as its IPv4 address), an IPv6 address by its /64 (one
 * subscriber's network: every host in it makes addresses of its own at will), anything else as written.
 * @example addressBucket('2001:db8::7:1') // '2001:db8:0:0::/64'
 */
export function addressBucket(address: string): string {
  if (!address.includes(':') || !ipaddr.IPv6.isValid(address)) return address;
  const parsed = ipaddr.IPv6.parse(address);
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
  return `${parsed.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}
