import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '@petstore/embed';
import { freePort } from '@petstore/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainJs } from '../helpers.js';

const KEY = 'signal-at-start-key-0123456789';
const RUNS = 20;
const AT_ONCE = 4;

/** One start signalled with SIGTERM as soon as it answers anything: how it ended and what it wrote. */
async function signalAtFirstAnswer(dataDir: string) {
  const port = await freePort();
  const child = spawn(process.execPath, [mainJs], {
    env: {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      PETSTORE_DATA_DIR: dataDir,
      PETSTORE_API_KEYS: `${KEY}:pro`,
      PETSTORE_LOG_LEVEL: 'info',
      // The drain is the production one's shape, shorter: the test waits for nothing else.
      PETSTORE_DRAIN_MS: '50',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const closed = once(child, 'close');
  // One counted request at a time, from the moment the process runs: the first that gets an answer is signalled at.
  let status = 0;
  while (child.exitCode === null) {
    status = await fetch(`http://127.0.0.1:${port}/v1/pets?limit=1`, { headers: { authorization: `Bearer ${KEY}` } }).then(
      async (response) => (await response.arrayBuffer(), response.status),
      () => 0,
    );
    if (status !== 0) break;
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  child.kill('SIGTERM');
  await closed;
  const messages = out
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { msg: string }).msg);
  return { status, code: child.exitCode, signal: child.signalCode, messages, err };
}

/** The key's count of the day (`d:` rows) the embedded database holds: each process writes its counts as it stops. */
async function keptCounts(dataDir: string): Promise<number> {
  const database = await openDatabase({ dataDir });
  try {
    const { rows } = await sql<{ points: number | null }>`select max(points)::int as points from rate_limits where key like 'd:%'`.execute(database.db);
    return rows[0]?.points ?? 0;
  } finally {
    await database.close();
  }
}

describe('SIGTERM at any moment of start-up', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'petstore-signal-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it(`stops cleanly when signalled at its first answer, ${RUNS} times: exit 0, the drain logged, the counts kept`, { timeout: 600_000 }, async () => {
    // AT_ONCE folders side by side, each started RUNS / AT_ONCE times in turn (a fresh folder only at its first start).
    const folders = Array.from({ length: AT_ONCE }, (_, i) => join(root, `data-${i}`));
    const lanes = await Promise.all(
      folders.map(async (folder) => {
        const results: Awaited<ReturnType<typeof signalAtFirstAnswer>>[] = [];
        for (let run = 0; run < RUNS / AT_ONCE; run++) results.push(await signalAtFirstAnswer(folder));
        return results;
      }),
    );
    for (const [i, result] of lanes.flat().entries()) {
      const what = `run ${i + 1}: ${JSON.stringify({ ...result, messages: result.messages.slice(-4) })}`;
      expect(result.status, what).toBe(200);
      expect([result.code, result.signal], what).toEqual([0, null]);
      const stopping = result.messages.indexOf('Stopping: finishing in-flight requests');
      expect(stopping, what).toBeGreaterThanOrEqual(0);
      expect(result.messages.indexOf('Stopped'), what).toBeGreaterThan(stopping);
      expect(result.err, what).toBe('');
    }
    // Each start answered one counted request before its signal and wrote the count as it stopped: the day's
    // window of each folder holds them all (unless the UTC day turned during the test).
    for (const folder of folders) expect(await keptCounts(folder), folder).toBe(RUNS / AT_ONCE);
  });
});
