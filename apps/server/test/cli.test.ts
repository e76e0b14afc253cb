import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPetStore } from '@petstore/embed';
import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run } from './cli-run.js';
import type { ListedKey } from './helpers.js';

// The key tool's commands, run in this process (its parsing, its output, its work on both databases). What needs a
// process of its own (exit codes, stdio, the bin, a folder another process holds, a running service) is in
// cli-process.test.ts.
const KEY_FORMAT = /^psk_[0-9A-Za-z]{38}$/;

const targets = [
  {
    name: 'the embedded database',
    async setUp() {
      const dir = await mkdtemp(join(tmpdir(), 'petstore-cli-'));
      return { env: { PETSTORE_DATA_DIR: dir }, tearDown: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  ...(databaseUrl
    ? [{ name: 'PostgreSQL', async setUp() { const db = await scratchPostgres(); return { env: { DATABASE_URL: db.url }, tearDown: db.drop }; } }]
    : []),
];

// The databases side by side, one command after another on each: an embedded folder is held by one store at a time.
describe.concurrent.each(targets)('petstore keys on $name', (target) => {
  describe.sequential('one command after another', () => {
    let env: Record<string, string>;
    let tearDown: () => Promise<void>;
    beforeAll(async () => ({ env, tearDown } = await target.setUp()));
    afterAll(() => tearDown());

    it('explains itself with --help', async () => {
      const { code, stdout } = await run(['--help'], env);
      expect(code).toBe(0);
      for (const command of ['create --plan', 'list', 'revoke ID', 'set-limits ID', 'roll ID [--grace DURATION]', '--expires-in', '--expires-at']) {
        expect(stdout).toContain(command);
      }
    });

    it('creates a key, prints it once, and lists it without the secret', async () => {
      const created = await run(['keys', 'create', '--plan', 'pro', '--label', 'mobile app'], env);
      expect(created.code, created.stderr).toBe(0);
      const key = created.stdout.trim();
      expect(key).toMatch(KEY_FORMAT);
      const listed = await run(['keys', 'list', '--json'], env);
      expect(listed.code).toBe(0);
      expect(listed.stdout).not.toContain(key);
      expect(listed.stdout).not.toContain(key.slice(4, 20));
      expect(JSON.parse(listed.stdout)).toContainEqual(
        expect.objectContaining({ id: expect.any(Number), label: 'mobile app', plan: 'pro', limits: { perMinute: 300, perDay: 10000 }, lastUsedAt: null, revokedAt: null }),
      );
      const table = await run(['keys', 'list'], env);
      expect(table.stdout).toMatch(/^ID\s+LABEL\s+PLAN\s+PER MINUTE\s+PER DAY\s+CREATED\s+LAST USED\s+REVOKED\s+EXPIRES\s+REPLACED BY\s+DEPRECATED CALLS\s+LAST DEPRECATED CALL\n/);
    });

    it('sets the limits of an enterprise key and refuses them for other plans', async () => {
      const enterprise = await run(['keys', 'create', '--plan', 'enterprise', '--label', 'big customer'], env);
      const free = await run(['keys', 'create', '--plan', 'free', '--label', 'small'], env);
      const rows = JSON.parse((await run(['keys', 'list', '--json'], env)).stdout) as ListedKey[];
      const idOf = (label: string) => String(rows.find((r) => r.label === label)!.id);
      expect(enterprise.code + free.code).toBe(0);

      const set = await run(['keys', 'set-limits', idOf('big customer'), '--per-minute', '5', '--per-day', '7'], env);
      expect(set.code, set.stderr).toBe(0);
      const after = JSON.parse((await run(['keys', 'list', '--json'], env)).stdout) as ListedKey[];
      expect(after.find((r) => r.label === 'big customer')).toMatchObject({ limits: { perMinute: 5, perDay: 7 } });

      const refused = await run(['keys', 'set-limits', idOf('small'), '--per-minute', '5', '--per-day', '7'], env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('not an enterprise key');
    });

    it('revokes a key and reports unknown ids and bad input with exit code 2', async () => {
      const created = await run(['keys', 'create', '--plan', 'free', '--label', 'to revoke'], env);
      expect(created.code).toBe(0);
      const rows = JSON.parse((await run(['keys', 'list', '--json'], env)).stdout) as ListedKey[];
      const id = rows.find((r) => r.label === 'to revoke')!.id;
      const revoked = await run(['keys', 'revoke', String(id)], env);
      expect(revoked.code).toBe(0);
      const after = JSON.parse((await run(['keys', 'list', '--json'], env)).stdout) as ListedKey[];
      expect(after.find((r) => r.id === id)!.revokedAt).toMatch(/^\d{4}-\d\d-\d\dT/);

      expect((await run(['keys', 'revoke', '999999'], env)).code).toBe(2);
      expect((await run(['keys', 'create', '--plan', 'gold'], env)).stderr).toContain('--plan is required: one of free, pro, business, enterprise');
      expect((await run(['keys', 'create', '--plan', 'enterprise', '--per-minute', '0', '--per-day', '5'], env)).code).toBe(2);
      expect((await run(['keys', 'frobnicate'], env)).code).toBe(2);
    });

    const listed = async () => JSON.parse((await run(['keys', 'list', '--json'], env)).stdout) as ListedKey[];
    const near = (iso: string | null | undefined, ms: number) => Math.abs(Date.parse(iso ?? '') - ms) < 60_000;

    it('creates keys that expire after a duration or at a time, and lists when', async () => {
      const inThirty = await run(['keys', 'create', '--plan', 'free', '--label', 'thirty days', '--expires-in', '30d'], env);
      expect(inThirty.code, inThirty.stderr).toBe(0);
      expect(inThirty.stdout.trim()).toMatch(KEY_FORMAT);
      expect(inThirty.stderr).toMatch(/^Created key \d+ \(free, until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)/);
      const at = await run(['keys', 'create', '--plan', 'pro', '--label', 'new year', '--expires-at', '2027-01-01T00:00:00Z'], env);
      expect(at.code, at.stderr).toBe(0);
      const rows = await listed();
      expect(near(rows.find((r) => r.label === 'thirty days')?.expiresAt, Date.now() + 30 * 86_400_000)).toBe(true);
      expect(rows.find((r) => r.label === 'new year')).toMatchObject({ expiresAt: '2027-01-01T00:00:00.000Z', replacedBy: null });

      for (const [args, message] of [
        [['--expires-in', '30d', '--expires-at', '2027-01-01'], 'not both'],
        [['--expires-in', '30'], '--expires-in must be a duration above 0'],
        [['--expires-in', '0'], '--expires-in must be a duration above 0'],
        [['--expires-at', '2027-01-01T00:00:00'], '--expires-at must be a time with its zone'],
        [['--expires-at', '2020-01-01'], '--expires-at must lie ahead; 2020-01-01T00:00:00Z has passed'],
      ] as const) {
        const refused = await run(['keys', 'create', '--plan', 'free', ...args], env);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain(message);
      }
    });

    it('rolls a key: prints a new key with the same label, plan and limits, and both work until the grace ends', { timeout: 120_000 }, async () => {
      const created = await run(
        ['keys', 'create', '--plan', 'enterprise', '--label', 'to roll', '--per-minute', '5000', '--per-day', '2000000'],
        env,
      );
      const oldKey = created.stdout.trim();
      const oldId = String((await listed()).find((r) => r.label === 'to roll')!.id);
      const rolled = await run(['keys', 'roll', oldId, '--grace', '24h'], env);
      expect(rolled.code, rolled.stderr).toBe(0);
      const newKey = rolled.stdout.trim();
      expect(newKey).toMatch(KEY_FORMAT);
      expect(newKey).not.toBe(oldKey);
      expect(rolled.stderr).toMatch(new RegExp(`^Rolled key ${oldId} into key \\d+ \\(enterprise\\)\\. Key ${oldId} works until \\S+Z\\.`));

      const rows = (await listed()).filter((r) => r.label === 'to roll');
      expect(rows).toHaveLength(2);
      const [old, fresh] = rows as [ListedKey, ListedKey];
      expect(old.replacedBy).toBe(fresh.id);
      expect(near(old.expiresAt, Date.now() + 86_400_000)).toBe(true);
      expect(fresh).toMatchObject({ plan: 'enterprise', limits: { perMinute: 5000, perDay: 2000000 }, expiresAt: null, lastUsedAt: null });

      const service = await openPetStore({ databaseUrl: env.DATABASE_URL, dataDir: env.PETSTORE_DATA_DIR, rateLimitStore: 'none' });
      try {
        for (const key of [oldKey, newKey]) {
          await expect(service.store.listPets({ limit: 1 }, { apiKey: key })).resolves.toMatchObject({ data: expect.any(Array) });
        }
        await vi.waitFor(async () => {
          const used = (await service.store.apiKeys.list()).find((k) => k.id === fresh.id);
          expect(used?.lastUsedAt).not.toBeNull();
        });
      } finally {
        await service.close();
      }
      expect((await listed()).find((r) => r.id === fresh.id)!.lastUsedAt).toMatch(/^\d{4}-\d\d-\d\dT/);

      const again = await run(['keys', 'roll', oldId], env);
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('was already rolled');
      expect((await run(['keys', 'roll', '999999'], env)).stderr).toContain('No key with ID 999999');
      expect((await run(['keys', 'roll', String(fresh.id), '--grace', '1y'], env)).stderr).toContain('--grace must be a duration');

      const now = await run(['keys', 'roll', String(fresh.id), '--grace', '0', '--expires-in', '7d'], env);
      expect(now.code, now.stderr).toBe(0);
      const after = await listed();
      expect(near(after.find((r) => r.id === fresh.id)!.expiresAt, Date.now())).toBe(true);
      const newest = after.find((r) => r.id === after.find((x) => x.id === fresh.id)!.replacedBy);
      expect(near(newest?.expiresAt, Date.now() + 7 * 86_400_000)).toBe(true);
    });
  });
});

describe.concurrent('each command of the key tool takes only its own options', () => {
  // A database nothing listens on: a refusal must come before any connection (exit 2, not the 1 of a failed one).
  const env = { DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:1/petstore' };
  const refusals: [command: string, args: string[], message: string][] = [
    ['keys create', ['--plan', 'pro', '--grace', '1h'], '"keys create" does not take --grace.'],
    ['keys create', ['--plan'], '--plan needs a value: --plan PLAN.'],
    ['keys create', ['--plan', '--label', 'mobile'], '--plan needs a value: --plan PLAN.'],
    ['keys create', ['--label', 'a', '--plan', 'pro', '--label', 'b'], '--label is given twice.'],
    ['keys create', ['--plan', 'pro', 'mobile'], '"keys create" takes no arguments; "mobile" is too many.'],
    ['keys create', ['--label', 'no plan'], '--plan is required: one of free, pro, business, enterprise.'],
    ['keys roll', ['3', '--plan', 'pro'], '"keys roll" does not take --plan.'],
    ['keys roll', ['3', '--grace'], '--grace needs a value: --grace DURATION.'],
    ['keys roll', [], 'Give the numeric ID of a key'],
    ['keys roll', ['3', '4'], '"keys roll" takes ID; "4" is too many.'],
    ['keys list', ['--plan', 'pro'], '"keys list" does not take --plan.'],
    ['keys list', ['--json=yes'], '--json takes no value.'],
    ['keys list', ['everything'], '"keys list" takes no arguments; "everything" is too many.'],
    ['keys deprecated', ['--label', 'x'], '"keys deprecated" does not take --label.'],
    ['keys deprecated', ['3'], '"keys deprecated" takes no arguments; "3" is too many.'],
    ['keys revoke', ['3', '--plan', 'pro'], '"keys revoke" does not take --plan.'],
    ['keys revoke', ['3', '-f'], '"keys revoke" does not take -f.'],
    ['keys revoke', [], 'Give the numeric ID of a key'],
    ['keys revoke', ['three'], 'Give the numeric ID of a key (see "petstore keys list"), not "three".'],
    ['keys set-limits', ['3', '--per-minute', '5', '--per-day', '7', '--json'], '"keys set-limits" does not take --json.'],
    ['keys set-limits', ['3', '--per-minute', '5'], '--per-day is required.'],
    ['keys set-limits', ['3', '--per-minute', '5', '--per-day'], '--per-day needs a value: --per-day N.'],
    ['backup', ['copy.tar.gz', '--json'], '"backup" does not take --json.'],
    ['backup', [], 'Give the file to write: petstore backup FILE.'],
    ['restore', ['copy.tar.gz', '--force'], '"restore" does not take --force.'],
    ['restore', ['one.tar.gz', 'two.tar.gz'], '"restore" takes FILE; "two.tar.gz" is too many.'],
  ];

  it.each(refusals)('refuses "%s" with %j: exit 2 before any database', async (command, args, message) => {
    const { code, stdout, stderr } = await run([...command.split(' '), ...args], env);
    expect(stderr).toContain(`petstore: ${message}`);
    expect(stderr).toContain(`Run "petstore ${command} --help" for usage.`);
    expect(code).toBe(2);
    expect(stdout).toBe('');
  });

  it.each([
    [['keys', 'frobnicate'], 'Unknown command "keys frobnicate".'],
    [['frobnicate'], 'Unknown command "frobnicate".'],
    [['keys'], 'Give a keys command: create, roll, list, deprecated, revoke or set-limits.'],
    [[], 'Give a command.'],
    [['--plan', 'pro'], 'Unknown command "--plan".'],
  ])('refuses %j as no command it has: exit 2', async (args, message) => {
    const { code, stderr } = await run(args, env);
    expect(stderr).toContain(`petstore: ${message}\nRun "petstore --help" for usage.`);
    expect(code).toBe(2);
  });

  it.each([
    ['keys create', ['--plan PLAN', '--label TEXT', '--per-minute N', '--per-day N', '--expires-in DURATION', '--expires-at TIME'], ['--grace', '--json']],
    ['keys roll', ['--grace DURATION', '--expires-in DURATION', '--expires-at TIME'], ['--plan', '--json']],
    ['keys list', ['--json'], ['--plan']],
    ['keys deprecated', ['--json'], ['--plan']],
    ['keys revoke', [], ['--plan', '--json']],
    ['keys set-limits', ['--per-minute N', '--per-day N'], ['--plan', '--json']],
    ['backup', [], ['--json']],
    ['restore', [], ['--json']],
  ])('explains "%s" with --help: its own options and no others', async (command, own, others) => {
    const { code, stdout } = await run([...command.split(' '), '--help'], env);
    expect(code).toBe(0);
    expect(stdout).toMatch(new RegExp(`^Usage: petstore ${command} `));
    for (const option of [...own, '-h, --help']) expect(stdout).toContain(`  ${option} `);
    for (const option of others) expect(stdout).not.toContain(option);
  });
});
