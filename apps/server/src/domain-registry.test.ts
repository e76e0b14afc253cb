import { createDomainStore, type Clock } from '@petstore/core';
import { createDnsCheck } from '@petstore/embed';
import { dnsmasqInstalled, startDnsServer, testDatabases } from '@petstore/testing';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startDomainRegistry } from './domain-registry.js';

const PLATFORM = 'edge.platform.test';

async function until(probe: () => boolean, limitMs = 5000) {
  const start = Date.now();
  while (!probe()) {
    if (Date.now() - start > limitMs) throw new Error(`not within ${limitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.runIf(dnsmasqInstalled).each(testDatabases)("an instance's domain registry on $name", (database) => {
  it('serves a pending domain by itself once its record appears and its re-check is due, with the clock moved', async () => {
    const { db, close } = await database.open();
    const dns = await startDnsServer({ addresses: [[PLATFORM, '10.1.2.3']] });
    const clock: Clock & { at: number } = { at: Date.parse('2026-11-24T12:00:00Z'), now: () => clock.at };
    const domains = createDomainStore(db, { clock, check: createDnsCheck({ platformHost: PLATFORM, servers: [dns.server] }) });
    const registry = await startDomainRegistry({ domains, recheck: true, logger: pino({ level: 'silent' }), pollMs: 20, recheckMs: 20 });
    try {
      await domains.add('late.example.test');
      await until(() => registry.current().managed);
      await until(() => false, 200).catch(() => {}); // its first check (due at once) finds nothing
      expect((await domains.get('late.example.test'))?.state).toBe('pending');
      expect(registry.current().verified.size).toBe(0);

      await dns.set({ addresses: [[PLATFORM, '10.1.2.3']], cnames: [['late.example.test', PLATFORM]] });
      await until(() => false, 200).catch(() => {});
      expect(registry.current().verified.size).toBe(0); // not due yet: the clock has not moved
      clock.at += 60_000;
      await until(() => registry.current().verified.has('late.example.test'));
      expect((await domains.get('late.example.test'))?.state).toBe('verified');
    } finally {
      registry.close();
      await dns.stop();
      await close();
    }
  });
});
