import { describe, expect, it } from 'vitest';
import { sleep } from '../faults/load.js';
import { attack, cpuMs, LEGIT_KEY, legitimateClient, quantile, serveForSuite, serverDatabases, sideBySide } from './trpc-batch-attack.js';

// Key-less batches of the most calls a batch may hold (100), plain and streamed, from several connections at once.
// Each was run call by call: 100 calls counted against the address and 100 envelopes written. Now each batch is one
// request: one 401 counted once against the address, then, the address over its limit, one 429.
const key = LEGIT_KEY;
const paths = Array.from({ length: 100 }, () => 'pets.list').join(',');
const batch = { method: 'GET', path: `/trpc/${paths}?batch=1&input=%7B%7D` };
const streamed = { ...batch, headers: { 'trpc-accept': 'application/jsonl' } };
const single = { method: 'GET', path: '/trpc/pets.list?input=%7B%7D' };

describe.each(serverDatabases)('key-less batches of 100 calls, on $name', (database) => {
  const served = serveForSuite(database);

  it('are each refused once and counted once, while a legitimate client is served as with single calls', { timeout: 90_000 }, async () => {
    const { server, clock } = served;
    await legitimateClient(server.url, key, sleep(500));
    await clock.minuteWithRoom(20);

    let sent = 0;
    const { answers, underAttack, underReference } = await sideBySide(server.url, key, 4, () => (sent++ % 2 === 0 ? batch : streamed), () => single);
    const pid = server.child.pid!;
    const cpuBefore = cpuMs(pid);
    const alone = await attack(server.url, 4, () => batch, sleep(2_000));
    const cpuPerAnswer = (cpuMs(pid) - cpuBefore) / alone.length;

    const median = { underAttack: quantile(underAttack.latencies, 0.5), underSingles: quantile(underReference.latencies, 0.5) };
    console.log(
      JSON.stringify({
        attack: 'key-less batches of 100 calls',
        answers: answers.length + alone.length,
        serverCpuMsPerAnswer: cpuPerAnswer,
        legitimateMedianMs: median,
        legitimateP95Ms: { underAttack: quantile(underAttack.latencies, 0.95), underSingles: quantile(underReference.latencies, 0.95) },
      }),
    );
    // Each batch: one JSON answer (a streamed one too), 401 while the address has room, each counting once, then 429.
    for (const answer of answers) {
      expect(answer.headers?.['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.body.length).toBeLessThan(600);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { data: { error: { code: expect.any(String) } } } });
    }
    const refused = answers.filter((answer) => answer.status === 401);
    expect(refused.map((answer) => Number(answer.headers?.['x-ratelimit-remaining'])).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 60 }, (_, i) => i),
    );
    expect(answers.filter((answer) => answer.status !== 401 && answer.status !== 429)).toEqual([]);
    expect(answers.at(-1)?.status).toBe(429);
    expect(cpuPerAnswer).toBeLessThan(5);
    expect([...underAttack.statuses, ...underReference.statuses].filter((status) => status !== 200)).toEqual([]);
    expect(median.underAttack).toBeLessThan(3 * median.underSingles + 5);
  });
});
