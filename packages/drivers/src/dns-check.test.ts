import { dnsmasqInstalled, startDnsServer, testDatabases } from '@petstore/testing';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDomainStore, RECHECK_WINDOW_MS, type Clock, type Database, type DomainStore } from '@petstore/core';
import { createDnsCheck } from './dns-check.js';

const PLATFORM = 'edge.platform.test';
const PLATFORM_ADDRESS = '10.1.2.3';
const platform = [PLATFORM, PLATFORM_ADDRESS] as const;

describe.runIf(dnsmasqInstalled).each(testDatabases)('custom domains verified by DNS on $name', (database) => {
  let db: Kysely<Database>;
  let close: () => Promise<void>;
  let dns: Awaited<ReturnType<typeof startDnsServer>>;
  const clock: Clock & { at: number } = { at: Date.parse('2026-11-24T12:00:00Z'), now: () => clock.at };
  let domains: DomainStore;

  beforeAll(async () => {
    ({ db, close } = await database.open());
    dns = await startDnsServer({ addresses: [platform] });
    domains = createDomainStore(db, { clock, check: createDnsCheck({ platformHost: PLATFORM, servers: [dns.server] }) });
  });
  afterAll(async () => {
    await dns?.stop();
    await close?.();
  });

  it('adds a domain as pending and verifies it once it has a CNAME to the platform host', async () => {
    const added = await domains.add('Shop.Example.test.');
    expect(added).toMatchObject({ name: 'shop.example.test', state: 'pending', checkedAt: null });
    expect(await domains.add('shop.example.test')).toBe('exists');
    expect((await domains.snapshot()).verified.size).toBe(0);
    await dns.set({ addresses: [platform], cnames: [['shop.example.test', PLATFORM]] });
    const verified = await domains.verify('shop.example.test');
    expect(verified).toMatchObject({ state: 'verified', reason: `found CNAME ${PLATFORM}`, checkedAt: new Date(clock.at) });
    const snapshot = await domains.snapshot();
    expect(snapshot.managed).toBe(true);
    expect([...snapshot.verified.keys()]).toEqual(['shop.example.test']);
  });

  it('verifies an apex domain that resolves to the platform host addresses, and not one that resolves elsewhere', async () => {
    await domains.add('example.test');
    await domains.add('other.test');
    await dns.set({ addresses: [platform, ['example.test', PLATFORM_ADDRESS], ['other.test', '10.9.9.9']] });
    expect(await domains.verify('example.test')).toMatchObject({ state: 'verified' });
    const other = await domains.verify('other.test');
    expect(other).toMatchObject({ state: 'pending' });
    expect((other as { reason: string }).reason).toContain('other.test resolves to 10.9.9.9');
    expect((other as { reason: string }).reason).toContain(`ALIAS/ANAME record at ${PLATFORM}`);
  });

  it('names a conflicting A record in place of the CNAME and does not verify', async () => {
    await domains.add('api.conflict.test');
    await dns.set({ addresses: [platform, ['api.conflict.test', '10.9.9.9']] });
    const record = await domains.verify('api.conflict.test');
    expect(record).toMatchObject({ state: 'pending' });
    expect((record as { reason: string }).reason).toBe(
      `api.conflict.test has an address record (10.9.9.9) instead of a CNAME to ${PLATFORM}: remove it and add the CNAME`,
    );
    expect((await domains.snapshot()).verified.has('api.conflict.test')).toBe(false);
  });

  it('re-checks a pending domain by itself with backoff until its record appears, then fails it after 48 hours', async () => {
    for (const { name, state } of await domains.list()) if (state === 'pending') await domains.remove(name);
    await dns.set({ addresses: [platform] });
    clock.at = Date.parse('2026-11-25T00:00:00Z');
    const start = clock.at;
    await domains.add('late.example.test');
    await domains.add('never.example.test');
    expect(await domains.recheckDue()).toBe(2); // due at once when added
    const late = await domains.get('late.example.test');
    expect(late).toMatchObject({ state: 'pending', reason: `late.example.test has no CNAME record: add late.example.test CNAME ${PLATFORM}` });
    expect(late!.nextCheckAt!.getTime() - clock.at).toBe(60_000);
    expect(await domains.recheckDue()).toBe(0); // not yet due
    clock.at += 60_000;
    expect(await domains.recheckDue()).toBe(2);
    expect((await domains.get('late.example.test'))!.nextCheckAt!.getTime() - clock.at).toBe(120_000); // doubled

    await dns.set({ addresses: [platform], cnames: [['late.example.test', PLATFORM]] });
    clock.at += 120_000;
    expect(await domains.recheckDue()).toBe(2);
    expect(await domains.get('late.example.test')).toMatchObject({ state: 'verified', nextCheckAt: null });
    expect((await domains.snapshot()).verified.has('late.example.test')).toBe(true);

    // The other one keeps being checked, at most hourly, until the 48 hours are over.
    let checks = 0;
    while (clock.at < start + RECHECK_WINDOW_MS) {
      const next = (await domains.get('never.example.test'))!.nextCheckAt!;
      expect(next.getTime() - clock.at).toBeLessThanOrEqual(3_600_000);
      clock.at = next.getTime();
      checks += await domains.recheckDue();
    }
    expect(checks).toBeGreaterThan(40);
    expect(checks).toBeLessThan(60);
    expect(await domains.get('never.example.test')).toMatchObject({ state: 'failed', nextCheckAt: null });
    clock.at += 86_400_000;
    expect(await domains.recheckDue()).toBe(0);
  });

  it('fails a verified domain whose record was removed when verified again, and stops serving it', async () => {
    await dns.set({ addresses: [platform], cnames: [['gone.example.test', PLATFORM]] });
    await domains.add('gone.example.test');
    expect(await domains.verify('gone.example.test')).toMatchObject({ state: 'verified' });
    await dns.set({ addresses: [platform] });
    const record = await domains.verify('gone.example.test');
    expect(record).toMatchObject({ state: 'failed', reason: `gone.example.test has no CNAME record: add gone.example.test CNAME ${PLATFORM}` });
    expect((await domains.snapshot()).verified.has('gone.example.test')).toBe(false);
  });

  it('keeps redirects, refuses bad names, and removes domains', async () => {
    expect(await domains.add('not a domain')).toBe('invalid');
    expect(await domains.add('10.0.0.1')).toBe('invalid');
    expect(await domains.redirect('example.test', { to: 'Shop.Example.test', status: 308 })).toMatchObject({
      redirect: { to: 'shop.example.test', status: 308 },
    });
    expect(await domains.redirect('missing.test', { to: 'shop.example.test', status: 301 })).toBe('not_found');
    expect((await domains.snapshot()).verified.get('example.test')).toEqual({ to: 'shop.example.test', status: 308 });
    expect(await domains.redirect('example.test', null)).toMatchObject({ redirect: null });
    expect(await domains.remove('shop.example.test')).toBe(true);
    expect(await domains.remove('shop.example.test')).toBe(false);
    expect((await domains.list()).map((d) => d.name)).not.toContain('shop.example.test');
    expect(await domains.get('shop.example.test')).toBeUndefined();
    expect(await domains.verify('shop.example.test')).toBe('not_found');
    expect((await domains.snapshot()).verified.has('shop.example.test')).toBe(false);
  });

  it('stays managed after its last domain is removed, and takes a removed domain back as new', async () => {
    for (const { name } of await domains.list()) await domains.remove(name);
    expect(await domains.list()).toEqual([]);
    expect(await domains.snapshot()).toEqual({ managed: true, verified: new Map() });
    expect(await domains.add('shop.example.test')).toMatchObject({ state: 'pending', checkedAt: null, reason: null, redirect: null });
  });
});
