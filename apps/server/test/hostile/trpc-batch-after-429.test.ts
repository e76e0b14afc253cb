import { describe, expect, it } from 'vitest';
import { allPetIds, send, sleep } from '../faults/load.js';
import { LEGIT_KEY, legitimateClient, quantile, serveForSuite, serverDatabases, sideBySide } from './trpc-batch-attack.js';

// A client with a key of its own (free: 60 a minute) that pushes on with batches of 100 creates after its limit.
// Every call of its batches counts, as every request with a valid key does, but none after a call refused with 429
// runs: exactly its 60 creates are made, and its key is banned as any key pushing on would be (a batch being one
// request toward the ban).
const key = LEGIT_KEY;
const attacker = 'hostile-free-key-0123456789';
const creates = (n: number) => ({
  method: 'POST',
  path: `/trpc/${Array.from({ length: n }, () => 'pets.create').join(',')}?batch=1`,
  headers: { authorization: `Bearer ${attacker}`, 'content-type': 'application/json' },
  body: JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, { name: `attacker-${i}`, categoryId: 1 }]))),
});

describe.each(serverDatabases)('batches of creates past a key\'s limit, on $name', (database) => {
  const served = serveForSuite(database, [`${attacker}:free`]);

  it('create no more than the limit, every call counted, while a legitimate client is served as with single calls', { timeout: 90_000 }, async () => {
    const { server, clock } = served;
    type Entry = { result?: { data: { id: number } }; error?: { data: { error: { code: string } } } };
    await legitimateClient(server.url, key, sleep(500));
    await clock.minuteWithRoom(15);
    // The first batch takes the key to its limit: 60 creates made, the other 40 calls refused.
    const first = await send({ url: server.url, ...creates(100) });
    const made = (JSON.parse(first.body) as Entry[]).filter((call) => call.result);
    expect([first.status, made.length]).toEqual([207, 60]);

    // Then it pushes on with batches of 100 from four connections, or, in turns, with single creates.
    const { answers, underAttack, underReference: underSingles } = await sideBySide(server.url, key, 4, () => creates(100), () => creates(1));

    const median = { underAttack: quantile(underAttack.latencies, 0.5), underSingles: quantile(underSingles.latencies, 0.5) };
    console.log(
      JSON.stringify({
        attack: 'batches of 100 creates past the limit',
        answers: answers.length,
        legitimateMedianMs: median,
        legitimateP95Ms: { underAttack: quantile(underAttack.latencies, 0.95), underSingles: quantile(underSingles.latencies, 0.95) },
      }),
    );
    // Every call of those batches refused without running; each batch is one request toward a ban (DECISIONS), so
    // the key is banned once 10 of them have come after the first refusal, not by the first batch's 40 refusals.
    const calls = answers.flatMap((answer) => JSON.parse(answer.body) as Entry[]);
    expect(answers.length).toBeGreaterThan(10);
    expect(calls).toHaveLength(answers.length * 100);
    expect(calls.filter((call) => call.result)).toEqual([]);
    expect(new Set(calls.map((call) => call.error!.data.error.code))).toEqual(new Set(['rate_limited', 'api_key_banned']));
    const ids = await allPetIds(server.url, key);
    expect([...ids].sort((a, b) => a - b)).toEqual(made.map((call) => call.result!.data.id).sort((a, b) => a - b));
    const after = await send({ url: server.url, method: 'GET', path: '/v1/pets', headers: { authorization: `Bearer ${attacker}` } });
    expect([after.status, JSON.parse(after.body).code]).toEqual([429, 'api_key_banned']);

    expect([...underAttack.statuses, ...underSingles.statuses].filter((status) => status !== 200)).toEqual([]);
    expect(median.underAttack).toBeLessThan(3 * median.underSingles + 5);
  });
});
