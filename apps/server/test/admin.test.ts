import { mkdtemp, readFile, realpath, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminChannelFolders } from '@petstore/cli/admin-channel';
import { runCli, startProcess, type ListedKey, type ServerProcess } from './helpers.js';

const KEY_FORMAT = /^psk_[0-9A-Za-z]{38}$/;

function adminRequest(socketPath: string, path: string, token: string) {
  return new Promise<number>((resolve, reject) => {
    const req = request({ socketPath, method: 'POST', path, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject).end('[]');
  });
}

describe('the key tool and backups while the service runs on the embedded database', () => {
  let dir: string;
  let restored: string;
  let server: ServerProcess;
  let key: string;
  const env = () => ({ PETSTORE_DATA_DIR: dir });
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers } });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'petstore-admin-'));
    restored = await mkdtemp(join(tmpdir(), 'petstore-restored-'));
    server = await startProcess({ PETSTORE_DATA_DIR: dir });
  });
  afterAll(async () => {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
    await rm(restored, { recursive: true, force: true });
  });

  it('creates a key through the running service, which works at once', async () => {
    const created = await runCli(['keys', 'create', '--plan', 'pro', '--label', 'made while running'], env());
    expect(created.code, created.stderr).toBe(0);
    key = created.stdout.trim();
    expect(key).toMatch(KEY_FORMAT);
    const response = await api('/v1/pets');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-ratelimit-limit')).toBe('300');
    const listed = JSON.parse((await runCli(['keys', 'list', '--json'], env())).stdout) as ListedKey[];
    expect(listed).toContainEqual(expect.objectContaining({ label: 'made while running', plan: 'pro' }));
  });

  it('revokes a key through the running service, refused within one second', async () => {
    const other = (await runCli(['keys', 'create', '--plan', 'free', '--label', 'to revoke'], env())).stdout.trim();
    expect((await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${other}` } })).status).toBe(200);
    const listed = JSON.parse((await runCli(['keys', 'list', '--json'], env())).stdout) as ListedKey[];
    const id = listed.find((row) => row.label === 'to revoke')!.id;
    const revoked = await runCli(['keys', 'revoke', String(id)], env());
    expect(revoked.code, revoked.stderr).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${other}` } })).status).toBe(401);
  });

  it('rolls and makes expiring keys through the running service; the new and the old key both work at once', async () => {
    const old = (await runCli(['keys', 'create', '--plan', 'free', '--label', 'to roll', '--expires-at', '2030-01-01'], env())).stdout.trim();
    const listed = JSON.parse((await runCli(['keys', 'list', '--json'], env())).stdout) as ListedKey[];
    const before = listed.find((row) => row.label === 'to roll')!;
    expect(before.expiresAt).toBe('2030-01-01T00:00:00.000Z');
    const rolled = await runCli(['keys', 'roll', String(before.id), '--grace', '1h'], env());
    expect(rolled.code, rolled.stderr).toBe(0);
    const fresh = rolled.stdout.trim();
    expect(fresh).toMatch(KEY_FORMAT);
    for (const token of [old, fresh]) {
      expect((await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    }
    const after = JSON.parse((await runCli(['keys', 'list', '--json'], env())).stdout) as ListedKey[];
    const replacement = after.find((row) => row.id === after.find((r) => r.id === before.id)!.replacedBy)!;
    expect(replacement).toMatchObject({ label: 'to roll', plan: 'free', expiresAt: '2030-01-01T00:00:00.000Z' });
    expect(Math.abs(Date.parse(after.find((r) => r.id === before.id)!.expiresAt!) - (Date.now() + 3_600_000))).toBeLessThan(60_000);
  });

  it('reports the keys that still call deprecated operations, from the running service', async () => {
    const created = await api('/v1/pets', { method: 'POST', body: JSON.stringify({ name: 'Old', categoryId: 1 }) });
    const { id } = (await created.json()) as { id: number };
    for (let i = 0; i < 3; i++) expect((await api(`/v1/pets/${id}`)).status).toBe(200);
    const report = await runCli(['keys', 'deprecated', '--json'], env());
    expect(report.code, report.stderr).toBe(0);
    expect(JSON.parse(report.stdout)).toEqual([
      expect.objectContaining({ keyId: expect.any(Number), label: 'made while running', operationId: 'getPet', calls: 3, sunset: '2030-12-05T00:00:00.000Z' }),
    ]);
    const listed = JSON.parse((await runCli(['keys', 'list', '--json'], env())).stdout) as ListedKey[];
    expect(listed.find((row) => row.label === 'made while running')).toMatchObject({ deprecatedCalls: 3 });
    expect(listed.find((row) => row.label === 'to revoke')).toMatchObject({ deprecatedCalls: 0, lastDeprecatedCallAt: null });
  });

  it('keeps the admin channel off the API port and refuses it without the token', async () => {
    expect((await fetch(`${server.url}/keys/list`, { method: 'POST', body: '[]' })).status).toBe(404);
    // No XDG_RUNTIME_DIR in the service's environment: the channel is in the data folder, in a folder of its own.
    const [place] = await adminChannelFolders(dir);
    const { folder, socketPath: socket, tokenPath } = place!;
    expect(folder).toBe(join(await realpath(dir), 'petstore.admin'));
    expect((await stat(folder)).mode & 0o777).toBe(0o700);
    expect((await stat(socket)).mode & 0o777).toBe(0o600);
    expect((await stat(tokenPath)).mode & 0o777).toBe(0o600);
    expect(await adminRequest(socket, '/keys/list', 'wrong')).toBe(401);
    const token = (await readFile(tokenPath, 'utf8')).trim();
    expect(await adminRequest(socket, '/keys/list', token)).toBe(200);
    expect(await adminRequest(socket, '/keys/findByHash', token)).toBe(404);
  });

  it('backs up while serving, and the restore keeps pets, hashed keys and increasing ids', async () => {
    const ids: number[] = [];
    for (const name of ['Before', 'Backup']) {
      const created = await api('/v1/pets', { method: 'POST', body: JSON.stringify({ name, categoryId: 1 }) });
      ids.push(((await created.json()) as { id: number }).id);
    }
    const file = join(restored, '..', `petstore-backup-${process.pid}.tar.gz`);
    const backup = await runCli(['backup', file], env());
    expect(backup.code, backup.stderr).toBe(0);
    // It holds key hashes: its owner's only.
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    await api('/v1/pets', { method: 'POST', body: JSON.stringify({ name: 'After', categoryId: 1 }) });
    await server.stop();

    const into = await runCli(['restore', file], { PETSTORE_DATA_DIR: restored });
    expect(into.code, into.stderr).toBe(0);
    const again = await runCli(['restore', file], { PETSTORE_DATA_DIR: restored });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('already holds a database');

    server = await startProcess({ PETSTORE_DATA_DIR: restored });
    const list = (await (await api('/v1/pets?limit=100')).json()) as { id: number; name: string }[];
    expect(list.map((pet) => pet.name)).toEqual(['Old', 'Before', 'Backup']);
    const next = (await (await api('/v1/pets', { method: 'POST', body: JSON.stringify({ name: 'Later', categoryId: 1 }) })).json()) as { id: number };
    expect(next.id).toBeGreaterThan(Math.max(...ids));
    const stored = await runCli(['keys', 'list', '--json'], { PETSTORE_DATA_DIR: restored });
    expect(stored.stdout).not.toContain(key);
    await rm(file, { force: true });
  });
});
