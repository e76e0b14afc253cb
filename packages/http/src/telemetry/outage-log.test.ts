import { Writable } from 'node:stream';
import { DependencyUnavailableError, PetStoreError } from '@petstore/core';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createOutageLog } from './outage-log.js';

function captureLogs() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

const refused = () => {
  const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5433'), { code: 'ECONNREFUSED' });
  return new PetStoreError('unavailable', undefined, { cause });
};

describe('the outage log', () => {
  beforeEach(() => vi.useFakeTimers({ now: Date.parse('2026-11-23T06:00:00Z'), toFake: ['setTimeout', 'clearTimeout', 'Date'] }));
  afterEach(() => vi.useRealTimers());

  it('logs one line when the database goes down and one when it answers again, with the requests refused between', async () => {
    const logs = captureLogs();
    let databaseUp = false;
    const outage = createOutageLog({ logger: logs.logger, probe: async () => databaseUp, probeEveryMs: 500 });
    for (let i = 0; i < 1_000; i++) {
      expect(outage.failed(refused())).toBe(true);
      if (i % 100 === 0) await vi.advanceTimersByTimeAsync(100);
    }
    expect(outage.down).toBe(true);
    await vi.advanceTimersByTimeAsync(10_000 - 1_000);
    databaseUp = true;
    await vi.advanceTimersByTimeAsync(500);
    await vi.waitFor(() => expect(outage.down).toBe(false));

    expect(logs.lines).toHaveLength(2);
    const [down, up] = logs.lines;
    expect(down).toMatchObject({ level: 50, msg: 'database unavailable: answering 503 until it returns', dependency: 'database', cause: { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED 127.0.0.1:5433' } });
    expect(up).toMatchObject({ level: 40, msg: 'database available again', dependency: 'database', refused: 1_000, downForMs: 10_500 });
    expect(JSON.stringify(logs.lines)).not.toContain('stack');
    outage.close();
  });

  it('keeps a Redis outage apart from the database: its own two lines, probed as redis', async () => {
    const logs = captureLogs();
    const up = { database: true, redis: false };
    const probed: string[] = [];
    const outage = createOutageLog({
      logger: logs.logger,
      probe: async (dependency) => (probed.push(dependency), up[dependency as keyof typeof up]),
      probeEveryMs: 500,
    });
    const redisDown = () =>
      new PetStoreError('unavailable', undefined, {
        cause: new DependencyUnavailableError('redis', new Error('Redis connection is not ready')),
      });
    for (let i = 0; i < 100; i++) {
      expect(outage.failed(redisDown())).toBe(true);
      await vi.advanceTimersByTimeAsync(50);
    }
    expect(outage.down).toBe(true);
    up.redis = true;
    await vi.advanceTimersByTimeAsync(500);
    await vi.waitFor(() => expect(outage.down).toBe(false));
    expect(new Set(probed)).toEqual(new Set(['redis']));
    expect(logs.lines).toHaveLength(2);
    expect(logs.lines[0]).toMatchObject({ level: 50, msg: 'redis unavailable: answering 503 until it returns', dependency: 'redis', cause: { message: 'Redis connection is not ready' } });
    expect(logs.lines[1]).toMatchObject({ level: 40, msg: 'redis available again', dependency: 'redis', refused: 100 });
    outage.close();
  });

  it('leaves every other failure to the caller, who logs it with its stack', () => {
    const logs = captureLogs();
    const outage = createOutageLog({ logger: logs.logger, probe: async () => true });
    expect(outage.failed(new PetStoreError('internal_error', undefined, { cause: new Error('bug') }))).toBe(false);
    expect(outage.failed(new PetStoreError('rate_limited'))).toBe(false);
    expect(outage.down).toBe(false);
    expect(logs.lines).toEqual([]);
    outage.close();
  });

  it('logs each of two outages once, and nothing while the database answers', async () => {
    const logs = captureLogs();
    let databaseUp = false;
    const outage = createOutageLog({ logger: logs.logger, probe: async () => databaseUp, probeEveryMs: 200 });
    for (const refusedCount of [3, 7]) {
      databaseUp = false;
      for (let i = 0; i < refusedCount; i++) outage.failed(refused());
      await vi.advanceTimersByTimeAsync(1_000);
      expect(outage.down).toBe(true);
      databaseUp = true;
      await vi.advanceTimersByTimeAsync(200);
      await vi.waitFor(() => expect(outage.down).toBe(false));
      await vi.advanceTimersByTimeAsync(5_000);
    }
    expect(logs.lines.map((l) => [l.msg, l.refused])).toEqual([
      ['database unavailable: answering 503 until it returns', undefined],
      ['database available again', 3],
      ['database unavailable: answering 503 until it returns', undefined],
      ['database available again', 7],
    ]);
    outage.close();
  });

  it('keeps probing while the probe itself fails', async () => {
    const logs = captureLogs();
    let calls = 0;
    const outage = createOutageLog({
      logger: logs.logger,
      probe: async () => {
        calls += 1;
        if (calls < 4) throw new Error('connect ECONNREFUSED');
        return true;
      },
      probeEveryMs: 100,
    });
    outage.failed(refused());
    await vi.advanceTimersByTimeAsync(1_000);
    await vi.waitFor(() => expect(outage.down).toBe(false));
    expect(calls).toBe(4);
    outage.close();
  });
});
