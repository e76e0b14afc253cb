import ipaddr from 'ipaddr.js';

/**
 * Whether a webhook may be sent to this address: only a global unicast one. Refused: loopback, private, link-local
 * (the cloud metadata address 169.254.169.254 among them), carrier-grade NAT, unique-local, unspecified, multicast,
 * reserved, and every IPv6 form that carries an IPv4 address (IPv4-mapped, NAT64, 6to4, Teredo), since what it
 * reaches is the IPv4 address inside. ipaddr.js names each range; anything but `unicast` is refused.
 * @example isPublicAddress('93.184.215.14') // true
 * @example isPublicAddress('::ffff:127.0.0.1') // false
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.parse(address).range() === 'unicast';
}
