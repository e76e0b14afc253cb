import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseUrl, scratchPostgres } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startProcess } from './helpers.js';

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

describe.each(targets)('petstore keys on $name', (target) => {
  let env: Record<string, string>;
  let tearDown: () => Promise<void>;
  beforeAll(async () => ({ env, tearDown } = await target.setUp()));
  afterAll(() => tearDown());

  it('explains itself with --help', async () => {
    const { code, stdout } = await runCli(['--help'], env);
    expect(code).toBe(0);
    for (const command of ['create --plan', 'list', 'revoke ID', 'set-limits ID']) expect(stdout).toContain(command);
  });

  it('creates a key, prints it once, and lists it without the secret', async () => {
    const created = await runCli(['keys', 'create', '--plan', 'pro', '--label', 'mobile app'], env);
    expect(created.code, created.stderr).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(KEY_FORMAT);
    const listed = await runCli(['keys', 'list', '--json'], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(key);
    expect(listed.stdout).not.toContain(key.slice(4, 20));
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ label: 'mobile app', plan: 'pro', 'per minute': '300', 'per day': '10000', 'last used': '-', revoked: '-' }),
    );
    const table = await runCli(['keys', 'list'], env);
    expect(table.stdout).toMatch(/^ID\s+LABEL\s+PLAN\s+PER MINUTE\s+PER DAY\s+CREATED\s+LAST USED\s+REVOKED/);
  });

  it('sets the limits of an enterprise key and refuses them for other plans', async () => {
    const enterprise = await runCli(['keys', 'create', '--plan', 'enterprise', '--label', 'big customer'], env);
    const free = await runCli(['keys', 'create', '--plan', 'free', '--label', 'small'], env);
    const rows = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as Record<string, string>[];
    const idOf = (label: string) => rows.find((r) => r.label === label)!.id!;
    expect(enterprise.code + free.code).toBe(0);

    const set = await runCli(['keys', 'set-limits', idOf('big customer'), '--per-minute', '5', '--per-day', '7'], env);
    expect(set.code, set.stderr).toBe(0);
    const after = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as Record<string, string>[];
    expect(after.find((r) => r.label === 'big customer')).toMatchObject({ 'per minute': '5', 'per day': '7' });

    const refused = await runCli(['keys', 'set-limits', idOf('small'), '--per-minute', '5', '--per-day', '7'], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('not an enterprise key');
  });

  it('revokes a key and reports unknown ids and bad input with exit code 2', async () => {
    const created = await runCli(['keys', 'create', '--plan', 'free', '--label', 'to revoke'], env);
    expect(created.code).toBe(0);
    const rows = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as Record<string, string>[];
    const id = rows.find((r) => r.label === 'to revoke')!.id!;
    const revoked = await runCli(['keys', 'revoke', id], env);
    expect(revoked.code).toBe(0);
    const after = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as Record<string, string>[];
    expect(after.find((r) => r.id === id)!.revoked).toMatch(/^\d{4}-\d\d-\d\dT/);

    expect((await runCli(['keys', 'revoke', '999999'], env)).code).toBe(2);
    expect((await runCli(['keys', 'create', '--plan', 'gold'], env)).stderr).toContain('--plan is required: one of free, pro, business, enterprise');
    expect((await runCli(['keys', 'create', '--plan', 'enterprise', '--per-minute', '0', '--per-day', '5'], env)).code).toBe(2);
    expect((await runCli(['keys', 'frobnicate'], env)).code).toBe(2);
  });
});

describe('keys and a running service', () => {
  it('refuses to open the embedded database that another process holds without an admin channel', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-cli-lock-'));
    const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      await writeFile(join(dir, 'petstore.pid'), String(holder.pid));
      const { code, stderr } = await runCli(['keys', 'list'], { PETSTORE_DATA_DIR: dir });
      expect(code).toBe(1);
      expect(stderr).toContain(`in use by process ${holder.pid}`);
    } finally {
      holder.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.runIf(databaseUrl)('makes a revocation take effect within one second on every instance', async () => {
    const db = await scratchPostgres();
    const env = { DATABASE_URL: db.url };
    const key = (await runCli(['keys', 'create', '--plan', 'pro', '--label', 'revoked soon'], env)).stdout.trim();
    const servers = await Promise.all([startProcess(env), startProcess(env)]);
    try {
      const get = (url: string) => fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
      expect(await Promise.all(servers.map((s) => get(s.url)))).toEqual([200, 200]);
      const rows = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as Record<string, string>[];
      expect((await runCli(['keys', 'revoke', rows.find((r) => r.label === 'revoked soon')!.id!], env)).code).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await Promise.all(servers.map((s) => get(s.url)))).toEqual([401, 401]);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await db.drop();
    }
  });
});
