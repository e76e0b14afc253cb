import { chmod, lchown, chown, mkdir, mkdtemp, readdir, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_FOLDER as PGLITE_ADMIN_FOLDER } from '@petstore/pglite';
import { ADMIN_FOLDER, adminChannelFolders } from '@petstore/cli/admin-channel';
import { runCli, startProcess, type ListedKey, type ServerProcess } from '../helpers.js';

// Another local user (nobody) gets to the admin channel's place in a shared runtime folder (a /tmp-like folder, mode
// 1777) before the service: a link to a file of root's, or a folder of their own with a socket answering like the
// service. Files owned by another user need root to make: CI and these machines run the tests as root.
const NOBODY = 65534;
const KEY_FORMAT = /^psk_[0-9A-Za-z]{38}$/;
const ATTACKER_KEY = 'psk_AttackerChoseThisKey000000000000000000';

describe('the admin channel when another local user squats its place', () => {
  let shared: string;
  let dataDir: string;
  let victim: string;
  let fake: Server;
  const heard: string[] = [];
  const env = () => ({ PETSTORE_DATA_DIR: dataDir, XDG_RUNTIME_DIR: shared });

  beforeAll(async () => {
    expect(process.getuid?.(), 'these tests make files of another user, as root').toBe(0);
    shared = await mkdtemp(join(tmpdir(), 'petstore-shared-run-'));
    await chmod(shared, 0o1777);
    dataDir = await mkdtemp(join(tmpdir(), 'petstore-squatted-'));
    victim = await mkdtemp(join(tmpdir(), 'petstore-victim-'));
    await writeFile(join(victim, 'admin.token'), 'root file\n');
    fake = createServer((req, res) => {
      heard.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      const result = req.url === '/keys/create' ? { key: ATTACKER_KEY, record: { id: 1, plan: 'free' } } : true;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result }));
    });
  });
  afterAll(async () => {
    fake.close();
    for (const dir of [shared, dataDir, victim]) await rm(dir, { recursive: true, force: true });
  });

  it('starts the service without writing through a planted link, and the key tool reaches it in the data folder', { timeout: 300_000 }, async () => {
    const [runtime, inData] = await adminChannelFolders(dataDir, shared);
    await symlink(victim, runtime!.folder);
    await lchown(runtime!.folder, NOBODY, NOBODY);
    const server: ServerProcess = await startProcess(env());
    try {
      expect(await readdir(victim)).toEqual(['admin.token']);
      expect(await readFile(join(victim, 'admin.token'), 'utf8')).toBe('root file\n');
      expect(server.stdout()).toContain('it is a symbolic link');
      expect(inData!.folder).toBe(join(await realpath(dataDir), ADMIN_FOLDER));
      const created = await runCli(['keys', 'create', '--plan', 'free'], env());
      expect(created.code, created.stderr).toBe(0);
      const key = created.stdout.trim();
      expect(created.stderr).toContain('not using the admin channel');
      expect((await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      // The service's own place inside the data folder is left out of backups (a socket cannot be copied).
      expect(PGLITE_ADMIN_FOLDER).toBe(ADMIN_FOLDER);
      const backup = await runCli(['backup', join(victim, '..', `petstore-squat-${process.pid}.tar.gz`)], env());
      expect(backup.code, backup.stderr).toBe(0);
      await rm(join(victim, '..', `petstore-squat-${process.pid}.tar.gz`), { force: true });
    } finally {
      await server.stop();
      await rm((await adminChannelFolders(dataDir, shared))[0]!.folder, { force: true });
    }
  });

  it('never sends a squatted channel its token nor believes its answers: revoke and create reach the real database', { timeout: 300_000 }, async () => {
    const [runtime] = await adminChannelFolders(dataDir, shared);
    await mkdir(runtime!.folder, { mode: 0o755 });
    await new Promise<void>((resolve) => fake.listen(runtime!.socketPath, resolve));
    await writeFile(runtime!.tokenPath, 'the attacker token', { mode: 0o644 });
    for (const path of [runtime!.folder, runtime!.socketPath, runtime!.tokenPath]) await chown(path, NOBODY, NOBODY);

    // No service runs: the tool must open the database itself.
    const missing = await runCli(['keys', 'revoke', '999'], env());
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('No key with ID 999');
    expect(missing.stdout).not.toContain('Revoked');

    const created = await runCli(['keys', 'create', '--plan', 'pro', '--label', 'real'], env());
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout.trim()).toMatch(KEY_FORMAT);
    expect(created.stdout).not.toContain(ATTACKER_KEY);
    const listed = JSON.parse((await runCli(['keys', 'list', '--json'], env())).stdout) as ListedKey[];
    const real = listed.find((row) => row.label === 'real')!;
    const revoked = await runCli(['keys', 'revoke', String(real.id)], env());
    expect(revoked.code, revoked.stderr).toBe(0);
    const after = JSON.parse((await runCli(['keys', 'list', '--json'], env())).stdout) as ListedKey[];
    expect(after.find((row) => row.id === real.id)!.revokedAt).not.toBeNull();
    expect(heard).toEqual([]);

    // With the service running, the service and the tool both pass the squatted place by; the key tool still
    // reaches the service, and a revocation through it is served within a second.
    const server = await startProcess(env());
    try {
      const key = (await runCli(['keys', 'create', '--plan', 'free', '--label', 'live'], env())).stdout.trim();
      expect((await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      const live = (JSON.parse((await runCli(['keys', 'list', '--json'], env())).stdout) as ListedKey[]).find((row) => row.label === 'live')!;
      expect((await runCli(['keys', 'revoke', String(live.id)], env())).code).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
      expect(heard).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  it('takes over the stale socket and token of a service that was killed', { timeout: 300_000 }, async () => {
    const own = { PETSTORE_DATA_DIR: dataDir };
    const killed = await startProcess(own);
    expect(await killed.stop('SIGKILL')).toBe(null);
    const server = await startProcess(own);
    try {
      const created = await runCli(['keys', 'create', '--plan', 'free'], own);
      expect(created.code, created.stderr).toBe(0);
      expect((await fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${created.stdout.trim()}` } })).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
