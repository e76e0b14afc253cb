import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main as hostTool } from '@petstore/cli';
import { databaseUrl, outputOf, scratchPostgres } from '@petstore/testing';
import { describe, expect, it, vi } from 'vitest';
import { run } from './cli-run.js';
import { runCli, startProcess, type ListedKey } from './helpers.js';

// The key tool where a process matters: its exit codes and stdio, what it loads, a data folder another process
// holds, and a running service (its admin channel; a revocation reaching every instance). Its commands themselves
// are tested in-process in cli.test.ts.
const serverDir = fileURLToPath(new URL('..', import.meta.url));
const KEY_FORMAT = /^psk_[0-9A-Za-z]{38}$/;

describe('keys and a running service', () => {
  it('refuses to open the embedded database that another process holds without an admin channel (exit 1)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-cli-lock-'));
    // A host process that holds the folder through the package, as an embedder does: no admin channel.
    const holds = `import { openEmbeddedDatabase } from '@petstore/pglite';
      await openEmbeddedDatabase(process.argv[1]); console.log('open'); setInterval(() => {}, 60_000);`;
    const holder = spawn(process.execPath, ['--input-type=module', '-e', holds, dir], { cwd: serverDir, stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      await once(holder.stdout!, 'data');
      // The tool's own process: its exit code is the one for a failure, not for a mistake in the command line.
      const { code, stderr } = await runCli(['keys', 'list'], { PETSTORE_DATA_DIR: dir });
      expect(code).toBe(1);
      expect(stderr).toContain(`in use by process ${holder.pid}`);
    } finally {
      holder.kill();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("lets the hosts' tool (@petstore/cli --data-dir) manage keys through a running service's admin channel, and directly once it stops", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-cli-host-tool-'));
    const host = async (...argv: string[]) => {
      let out = '';
      let err = '';
      const code = await hostTool([...argv, '--data-dir', dir], { env: {}, out: { write: (t: string) => (out += t) }, err: { write: (t: string) => (err += t) } });
      return { code, out, err };
    };
    const server = await startProcess({ PETSTORE_DATA_DIR: dir });
    try {
      const created = await host('keys', 'create', '--plan', 'pro', '--label', 'from the host tool', '--expires-in', '30d');
      expect(created.code, created.err).toBe(0);
      const key = created.out.trim();
      expect(key).toMatch(KEY_FORMAT);
      const status = () => fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
      expect(await status()).toBe(200);
      const listed = (JSON.parse((await host('keys', 'list', '--json')).out) as { id: number; label: string; expiresAt: string }[]).find(
        (k) => k.label === 'from the host tool',
      );
      expect(listed).toMatchObject({ label: 'from the host tool', expiresAt: expect.stringMatching(/^\d{4}-/) });
      // The service's own tool sees the same key.
      expect((await run(['keys', 'list'], { PETSTORE_DATA_DIR: dir })).stdout).toContain('from the host tool');
      const rolled = await host('keys', 'roll', String(listed!.id), '--grace', '0');
      expect(rolled.code, rolled.err).toBe(0);
      await vi.waitFor(async () => expect(await status()).toBe(401), { timeout: 5_000, interval: 100 });
    } finally {
      await server.stop();
    }
    try {
      // Stopped: the folder is opened directly, under its lock.
      const rows = (JSON.parse((await host('keys', 'list', '--json')).out) as { id: number; label: string; replacedBy: number | null }[]).filter(
        (k) => k.label === 'from the host tool',
      );
      expect(rows).toHaveLength(2);
      expect(rows[0]!.replacedBy).toBe(rows[1]!.id);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it.runIf(databaseUrl)('makes a revocation take effect within one second on every instance', async () => {
    const db = await scratchPostgres();
    const env = { DATABASE_URL: db.url };
    const key = (await run(['keys', 'create', '--plan', 'pro', '--label', 'revoked soon'], env)).stdout.trim();
    const servers = await Promise.all([startProcess(env), startProcess(env)]);
    try {
      const get = (url: string) => fetch(`${url}/v1/pets`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
      expect(await Promise.all(servers.map((s) => get(s.url)))).toEqual([200, 200]);
      const rows = JSON.parse((await run(['keys', 'list', '--json'], env)).stdout) as ListedKey[];
      expect((await run(['keys', 'revoke', String(rows.find((r) => r.label === 'revoked soon')!.id)], env)).code).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect(await Promise.all(servers.map((s) => get(s.url)))).toEqual([401, 401]);
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
      await db.drop();
    }
  });
});

// The process around the tool: what the shell sees.
describe.concurrent('the petstore process', () => {
  const nowhere = { DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:1/petstore' };

  it('exits 0 with its help on stdout and nothing on stderr', async () => {
    const { code, stdout, stderr } = await runCli(['--help'], nowhere);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toContain('Usage: petstore keys <command>');
  });

  it('exits 2 for a command line it does not take, saying why on stderr, printing nothing on stdout', async () => {
    const { code, stdout, stderr } = await runCli(['keys', 'create', '--plan', 'gold'], nowhere);
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toBe('petstore: --plan is required: one of free, pro, business, enterprise.\nRun "petstore keys create --help" for usage.\n');
  });

  // What "fast" means, without a stopwatch on a shared machine: help, the release and a refused command line load
  // nothing but the tool's own command line (node:util and the store's input rules), so they take node's start-up.
  it.each([
    ['petstore', fileURLToPath(new URL('../bin/petstore.js', import.meta.url))],
    ['@petstore/cli', fileURLToPath(new URL('../../../packages/cli/bin/petstore-cli.js', import.meta.url))],
  ])('%s answers --help, --version and a refused command line without loading the store, zod, kysely or a driver', async (_tool, bin) => {
    const dir = await mkdtemp(join(tmpdir(), 'petstore-cli-loads-'));
    try {
      // A module hook that names every module the process loads, one line each, on stderr.
      const hook = join(dir, 'hook.mjs');
      await writeFile(hook, `export async function resolve(specifier, context, next) {
        const resolved = await next(specifier, context);
        process.stderr.write('loaded ' + resolved.url + '\\n');
        return resolved;
      }`);
      const register = join(dir, 'register.mjs');
      await writeFile(register, `import { register } from 'node:module'; register(${JSON.stringify(new URL(`file://${hook}`).href)});`);
      for (const args of [['--help'], ['--version'], ['keys', 'create', '--plan', 'gold']]) {
        const child = spawn(process.execPath, ['--import', register, bin, ...args], { env: { ...nowhere, PATH: process.env.PATH ?? '' }, stdio: ['ignore', 'pipe', 'pipe'] });
        const { stderr } = await outputOf(child);
        const loaded = stderr.split('\n').filter((line) => line.startsWith('loaded file:'));
        expect(loaded.some((line) => line.includes('/input-rules.js')), stderr).toBe(true);
        const heavy = loaded.filter((line) => /\/node_modules\/(kysely|zod|pg|@electric-sql|@trpc)\/|\/packages\/(core\/dist\/index|embed|drivers|pglite|http|trpc|rest)\b|\/(config|cli-keys|run-command)\.js/.test(line));
        expect(heavy, args.join(' ')).toEqual([]);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('exits 1 when the database cannot be reached, and does not wait for it', async () => {
    const { code, stdout, stderr } = await runCli(['keys', 'list'], nowhere);
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toMatch(/^petstore: /);
  });
});
