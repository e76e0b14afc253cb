import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startProcess, type ServerProcess } from './helpers.js';

// An enterprise key whose day (50) binds before its minute, so the day's count is what the headers show.
const KEY = 'restart-key-0123456789abcdef';
const env = (dataDir: string) => ({ PETSTORE_DATA_DIR: dataDir, PETSTORE_API_KEYS: `${KEY}:enterprise:1000:50` });
const auth = { authorization: `Bearer ${KEY}` };

async function requests(server: ServerProcess, lists: number, deprecatedGets = 0) {
  const created = await fetch(`${server.url}/v1/pets`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: number };
  for (let i = 0; i < lists; i++) expect((await fetch(`${server.url}/v1/pets?limit=1`, { headers: auth })).status).toBe(200);
  for (let i = 0; i < deprecatedGets; i++) expect((await fetch(`${server.url}/v1/pets/${id}`, { headers: auth })).status).toBe(200);
}

const dayLeft = async (server: ServerProcess) => {
  const response = await fetch(`${server.url}/v1/pets?limit=1`, { headers: auth });
  expect(response.status).toBe(200);
  return Number(response.headers.get('x-ratelimit-remaining'));
};

describe('a restart on the embedded database', () => {
  const folders: string[] = [];
  const servers: ServerProcess[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.stop('SIGKILL');
    for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true });
  });
  const start = async (dataDir: string) => {
    const server = await startProcess(env(dataDir));
    servers.push(server);
    return server;
  };

  it("keeps every key's quota day and the deprecated calls made up to the stop (SIGTERM)", { timeout: 90_000 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'petstore-restart-'));
    folders.push(dataDir);
    const first = await start(dataDir);
    // 1 create, 10 lists, 3 calls of the deprecated getPet: 14 of the day's 50; the last calls go just before the stop.
    await requests(first, 10, 3);
    expect(await first.stop()).toBe(0);

    const second = await start(dataDir);
    expect(await dayLeft(second)).toBe(50 - 15);
    const { code, stdout } = await runCli(['keys', 'deprecated', '--json'], { PETSTORE_DATA_DIR: dataDir });
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual([expect.objectContaining({ operationId: 'getPet', calls: 3 })]);
  });

  it('keeps the counts written up to a second before a kill -9', { timeout: 90_000 }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'petstore-restart-'));
    folders.push(dataDir);
    const first = await start(dataDir);
    await requests(first, 10);
    // The counters are written every second: after that, a kill loses none of them.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    first.child.kill('SIGKILL');
    await first.stop();

    const second = await start(dataDir);
    expect(await dayLeft(second)).toBe(50 - 12);
  });
});
