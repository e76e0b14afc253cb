import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { databaseUrl, outputOf, scratchPostgres } from '@petstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProcess, type ServerProcess } from '../helpers.js';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const KEY = 'upgrading-doc-key-0123456789';

/** The `sh` block of docs/upgrading.md marked `<!-- test: NAME -->`, as a reader would paste it. */
async function block(name: string): Promise<string> {
  const doc = await readFile(join(root, 'docs/upgrading.md'), 'utf8');
  const found = new RegExp(`<!-- test: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\``).exec(doc)?.[1];
  if (!found) throw new Error(`docs/upgrading.md has no block marked ${name}`);
  return found;
}

/** Runs a block with bash in `cwd`, a folder where `npx petstore` finds this build (as in an installed project). */
async function run(script: string, cwd: string, env: Record<string, string>) {
  const child = spawn('bash', ['-c', `set -euo pipefail\n${script}\n`], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const { code, stdout, stderr } = await outputOf(child);
  expect(code, `${script}\n${stderr}`).toBe(0);
  return stdout;
}

const petNames = async (server: ServerProcess) => {
  const response = await fetch(`${server.url}/v1/pets?limit=100`, { headers: { authorization: `Bearer ${KEY}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { name: string }[]).map((pet) => pet.name);
};

const create = async (server: ServerProcess, name: string) => {
  const response = await fetch(`${server.url}/v1/pets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, categoryId: 1 }),
  });
  expect(response.status).toBe(201);
};

describe("docs/upgrading.md's commands, as written", () => {
  let cwd: string;
  beforeAll(async () => {
    cwd = await mkdtemp(join(tmpdir(), 'petstore-upgrading-doc-'));
    await symlink(join(root, 'node_modules'), join(cwd, 'node_modules'));
  });
  afterAll(() => rm(cwd, { recursive: true, force: true }));

  it('name the running release, back the embedded database up while it serves, and restore it into a new folder', { timeout: 180_000 }, async () => {
    const { version } = JSON.parse(await readFile(join(root, 'apps/server/build-info.json'), 'utf8')) as { version: string };
    const env = { PETSTORE_DATA_DIR: join(cwd, 'data'), PETSTORE_API_KEYS: `${KEY}:pro` };
    const server = await startProcess(env);
    try {
      await create(server, 'Backed up');
      // The documented address, and nothing else, becomes this server's.
      const release = await run((await block('which-release')).replaceAll('http://127.0.0.1:3000', server.url), cwd, env);
      expect(release).toBe(`${version}\n{"status":"ok","version":"${version}","checks":{"database":"ok"}}`);
      await run(await block('backup-embedded'), cwd, env);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    await run(await block('restore-embedded'), cwd, {});
    const restored = await startProcess({ ...env, PETSTORE_DATA_DIR: join(cwd, 'restored') });
    try {
      expect(await petNames(restored)).toEqual(['Backed up']);
    } finally {
      expect(await restored.stop()).toBe(0);
    }
  });

  it.runIf(databaseUrl)('dump PostgreSQL and restore the dump into an empty database that then serves', { timeout: 180_000 }, async () => {
    const source = await scratchPostgres();
    const target = await scratchPostgres();
    try {
      const server = await startProcess({ DATABASE_URL: source.url, PETSTORE_API_KEYS: `${KEY}:pro` });
      try {
        await create(server, 'Dumped');
      } finally {
        expect(await server.stop()).toBe(0);
      }
      await run(await block('backup-postgres'), cwd, { PETSTORE_ADMIN_DATABASE_URL: source.url });
      await run(await block('restore-postgres'), cwd, { EMPTY_DATABASE_URL: target.url });
      const restored = await startProcess({ DATABASE_URL: target.url, PETSTORE_API_KEYS: `${KEY}:pro` });
      try {
        expect(await petNames(restored)).toEqual(['Dumped']);
      } finally {
        expect(await restored.stop()).toBe(0);
      }
    } finally {
      await source.drop();
      await target.drop();
    }
  });
});
