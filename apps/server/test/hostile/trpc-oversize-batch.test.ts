import { describe, expect, it } from 'vitest';
import { sleep } from '../faults/load.js';
import { attack, cpuMs, LEGIT_KEY, legitimateClient, quantile, requestLines, serveForSuite, serverDatabases, sideBySide } from './trpc-batch-attack.js';

// The attack of issue 25: a key-less `GET /trpc/pets.get,pets.get,…(1,800 times)?batch=1` (16 KB) from several
// connections at once. It used to run 1,800 calls and write 547 KB each time, also after the address was refused,
// and raised a legitimate client's median latency from 2 ms to about 100 ms with four connections. Now it is one
// request refused as a whole: 400 `invalid_request` (more than 100 calls), then, the address over its limit, 429.
const key = LEGIT_KEY;
const oversize = { method: 'GET', path: `/trpc/${Array.from({ length: 1_800 }, () => 'pets.get').join(',')}?batch=1` };
// What the same connections send for comparison: one key-less call each time.
const single = { method: 'GET', path: '/trpc/pets.get?input=%7B%22petId%22%3A1%7D' };

describe.each(serverDatabases)('a key-less batch of 1,800 calls, on $name', (database) => {
  const served = serveForSuite(database);

  it('gets one small answer for under 5 ms of server time, while a legitimate client is served as with single calls', { timeout: 90_000 }, async () => {
    const { server } = served;
    await legitimateClient(server.url, key, sleep(500));
    // Four connections of 1,800-call batches, from the first one on (400 until the address is over its limit, 429
    // after), and the same four sending single key-less calls, in turns.
    const { answers, underAttack, underReference } = await sideBySide(server.url, key, 4, () => oversize, () => single);
    // What the batches cost the server alone: its CPU time per answer.
    const pid = server.child.pid!;
    const cpuBefore = cpuMs(pid);
    const alone = await attack(server.url, 4, () => oversize, sleep(2_000));
    const cpuPerAnswer = (cpuMs(pid) - cpuBefore) / alone.length;
    // Request lines are written when the event loop's turn ends: wait for the last ones.
    const total = answers.length + alone.length;
    for (let i = 0; i < 50 && requestLines(server, '/trpc/{batch}').length < total; i++) await sleep(100);
    const lineMs = requestLines(server, '/trpc/{batch}').map((line) => line.durationMs);

    const median = { underAttack: quantile(underAttack.latencies, 0.5), underSingles: quantile(underReference.latencies, 0.5) };
    console.log(
      JSON.stringify({
        attack: 'key-less batch of 1,800 calls',
        answers: total,
        serverCpuMsPerAnswer: cpuPerAnswer,
        requestLineMs: { median: quantile(lineMs, 0.5), p95: quantile(lineMs, 0.95) },
        legitimateMedianMs: median,
        legitimateP95Ms: { underAttack: quantile(underAttack.latencies, 0.95), underSingles: quantile(underReference.latencies, 0.95) },
      }),
    );
    // The attacker: refused as a whole every time, with one small JSON object, never a batch of answers.
    const statuses = [...answers, ...alone].map((answer) => answer.status);
    expect(statuses[0]).toBe(400);
    expect(statuses.filter((status) => status !== 400 && status !== 429)).toEqual([]);
    expect(statuses.at(-1)).toBe(429);
    for (const answer of [...answers, ...alone]) {
      expect(answer.body.length).toBeLessThan(600);
      expect(JSON.parse(answer.body)).toMatchObject({ error: { data: { error: { code: expect.any(String) } } } });
    }
    expect(cpuPerAnswer).toBeLessThan(5);
    // The legitimate client: every request answered 200, as fast as while the same connections send single calls.
    expect([...underAttack.statuses, ...underReference.statuses].filter((status) => status !== 200)).toEqual([]);
    expect(median.underAttack).toBeLessThan(3 * median.underSingles + 5);
  });
});
