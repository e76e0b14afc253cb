import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '@petstore/embed';
import { freePort } from '@petstore/testing';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mainJs } from '../helpers.js';

const KEY = 'signal-at-start-key-0123456789';
const RUNS = 20;
const AT_ONCE = 4;
/** The moments after spawn a SIGTERM is sent at (issue #47: the first 1 to 2.5 s ended in exit 143), each TIMES times. */
const DELAYS_MS = [300, 500, 1_000, 2_000, 3_000];
const TIMES = 5;
/** The delay test's starts side by side: two, one a core on this 2-core machine, so each is a start, not a crowd. */
const SIDE_BY_SIDE = 2;
/**
 * Node's own bootstrap, before the entry point's first statement, is the floor nothing of ours can guard: 30-70 ms
 * after spawn here one process at a time, above 300 ms with five starting at once on this shared 2-core machine. A
 * signal sent before this bound may land in it; after it, never (the modules the entry point loaded before it took
 * SIGTERM kept it from doing so until 0.5-2.5 s).
 */
const BOOTSTRAP_BOUND_MS = 500;
/** `node --import` of this writes to fd 3 when the entry point takes SIGTERM, and what had loaded by then. */
const MARKER = fileURLToPath(new URL('../fixtures/sigterm-taken.mjs', import.meta.url));

/**
 * Starts the service (with the fd-3 marker), signals it `at` ms after spawn (or as soon as its entry point has taken
 * SIGTERM), and answers how it ended, its lines, and when its entry point took the signal, if it did.
 */
async function signalAt(at: number | 'when-taken', entry = mainJs) {
  const child = spawn(process.execPath, ['--import', MARKER, entry], {
    // A configured key: no development key banner on stderr, which must stay empty.
    env: { PATH: process.env.PATH ?? '', PORT: '0', PETSTORE_DATA_DIR: 'memory://', PETSTORE_API_KEYS: `${KEY}:pro`, PETSTORE_LOG_LEVEL: 'info', PETSTORE_DRAIN_MS: '50' },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  const spawned = performance.now();
  let out = '';
  let err = '';
  let taken: { ms: number; loaded: number; afterSpawnMs: number } | undefined;
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  const markerSeen = new Promise<void>((resolve) =>
    (child.stdio[3] as Readable).setEncoding('utf8').on('data', (line: string) => {
      taken ??= { ...(JSON.parse(line) as { ms: number; loaded: number }), afterSpawnMs: Math.round(performance.now() - spawned) };
      resolve();
    }),
  );
  const closed = once(child, 'close');
  if (at === 'when-taken') await markerSeen;
  else await new Promise((resolve) => setTimeout(resolve, at));
  const signalledMs = Math.round(performance.now() - spawned);
  child.kill('SIGTERM');
  await closed;
  const lines = out.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { msg: string; during?: string });
  return {
    code: child.exitCode,
    signal: child.signalCode,
    signalledMs,
    taken,
    messages: lines.map((line) => line.msg),
    during: lines.find((line) => line.msg.startsWith('Stopping'))?.during ?? 'serving',
    err,
  };
}

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

  it(`stops cleanly on SIGTERM at ${DELAYS_MS.map((ms) => ms / 1000).join(', ')} s after spawn, ${TIMES} times each: exit 0 with its stop lines`, { timeout: 300_000 }, async () => {
    // Two processes at a time, each taking the next moment in turn: what is measured is the service's start-up, not a
    // crowd of them (most of each run is the wait before its signal, which two can share).
    const moments = Array.from({ length: TIMES }, () => DELAYS_MS).flat();
    const results: (Awaited<ReturnType<typeof signalAt>> & { ms: number })[] = [];
    await Promise.all(
      Array.from({ length: SIDE_BY_SIDE }, async () => {
        for (let ms = moments.shift(); ms !== undefined; ms = moments.shift()) results.push({ ms, ...(await signalAt(ms)) });
      }),
    );
    console.info(
      `SIGTERM after spawn: ${JSON.stringify(DELAYS_MS.map((ms) => ({ ms, during: results.filter((r) => r.ms === ms).map((r) => (r.taken ? r.during : "Node's bootstrap")) })))}`,
    );
    for (const result of results.filter((r) => r.taken)) {
      const what = JSON.stringify(result);
      expect([result.code, result.signal], what).toEqual([0, null]);
      const stopping = result.messages.findIndex((msg) => msg.startsWith('Stopping'));
      expect(stopping, what).toBeGreaterThanOrEqual(0);
      expect(result.messages.indexOf('Stopped'), what).toBeGreaterThan(stopping);
      expect(result.err, what).toBe('');
    }
    // Signalled before the entry point ran at all: Node's bootstrap, whose default ends the process (exit 143). Only
    // in its first moments.
    const inBootstrap = results.filter((r) => !r.taken);
    expect(inBootstrap.filter((r) => r.ms >= BOOTSTRAP_BOUND_MS || r.signal !== 'SIGTERM' || r.messages.length > 0).map((r) => JSON.stringify(r))).toEqual([]);
  });

  it('takes SIGTERM in its first statements, before any module of node_modules loads, and stops cleanly from then on', { timeout: 120_000 }, async () => {
    const taken: string[] = [];
    for (let run = 0; run < TIMES; run++) {
      const result = await signalAt('when-taken');
      const what = JSON.stringify(result);
      expect(result.taken?.loaded, what).toBe(0);
      expect([result.code, result.signal], what).toEqual([0, null]);
      expect(result.messages, what).toEqual(expect.arrayContaining([expect.stringMatching(/^Stopping/), 'Stopped']));
      expect(result.during, what).toBe('start-up');
      taken.push(`${result.taken!.ms} (${result.taken!.afterSpawnMs} after spawn)`);
    }
    // What Node's bootstrap alone costs now: the first statement of an empty module, in a process of its own.
    const empty = spawn(process.execPath, ['--input-type=module', '-e', 'process.stdout.write(String(Math.round(performance.now())))'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let bootstrap = '';
    empty.stdout.setEncoding('utf8').on('data', (chunk: string) => (bootstrap += chunk));
    await once(empty, 'close');
    console.info(`SIGTERM taken ${taken.join(', ')} ms after the process started; an empty module's first statement: ${bootstrap} ms`);
  });
});
