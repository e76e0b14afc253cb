import { describe, expect, it } from 'vitest';
import { addressBucket } from './address-bucket.js';

describe('the address bucket of the per-address limits', () => {
  it('counts an IPv6 client by its /64, however its address is written', () => {
    expect(addressBucket('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('2001:0db8:0000:0000:ffff:ffff:ffff:ffff')).toBe('2001:db8:0:0::/64');
    expect(addressBucket('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
    expect(addressBucket('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });

  it('counts an IPv4 client by its address, also as a dual-stack listener reports it', () => {
    expect(addressBucket('203.0.113.5')).toBe('203.0.113.5');
    expect(addressBucket('::ffff:203.0.113.5')).toBe('203.0.113.5');
    expect(addressBucket('::ffff:203.0.113.6')).toBe('203.0.113.6');
  });

  it('keeps anything that is not an address as it is', () => {
    expect(addressBucket('unknown')).toBe('unknown');
    expect(addressBucket('not:an:address')).toBe('not:an:address');
  });
});
