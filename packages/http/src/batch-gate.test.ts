import { PetStoreError } from '@petstore/core';
import { describe, expect, it } from 'vitest';
import { createBatchGate } from './batch-gate.js';

/** An input reader that remembers whether it was read. */
const reader = (input: string) => {
  const read: { count: number; fn: () => Promise<string> } = { count: 0, fn: async () => (read.count++, input) };
  return read;
};

const limited = () => new PetStoreError('rate_limited', undefined, { meta: { retryAfter: 7, keyId: 3 } });

describe('the order of a batch\'s calls', () => {
  it('refuses the calls after one refused with 429 without reading their input, and lets the ones before it run', async () => {
    const gate = createBatchGate();
    const inputs = [reader('a'), reader('b'), reader('c')];
    const [first, second, third] = inputs.map((input, index) => gate.enter(index, input.fn));
    second!.settled(limited());
    expect(await first!.readInput()).toBe('a');
    const refused = await third!.readInput().then(
      () => expect.unreachable('the call after the 429 was read'),
      (error: unknown) => error as PetStoreError,
    );
    expect(refused).toBeInstanceOf(PetStoreError);
    expect([refused.code, refused.status, refused.meta]).toEqual(['rate_limited', 429, { retryAfter: 7 }]);
    expect(inputs.map((input) => input.count)).toEqual([1, 0, 0]);
  });

  it('keeps a call waiting until the calls before it are admitted or refused', async () => {
    const gate = createBatchGate();
    const first = gate.enter(0, reader('a').fn);
    const second = gate.enter(1, reader('b').fn);
    let read = false;
    const reading = second.readInput().then((value: unknown) => ((read = true), value));
    await new Promise((resolve) => setImmediate(resolve));
    expect(read).toBe(false);
    await first.readInput();
    expect(await reading).toBe('b');
  });

  it('waits for an earlier call refused while the later one waits, and passes on its code', async () => {
    const gate = createBatchGate();
    const first = gate.enter(0, reader('a').fn);
    const second = gate.enter(1, reader('b').fn);
    const reading = second.readInput().catch((error: unknown) => error as PetStoreError);
    first.settled(new PetStoreError('api_key_banned', 'Banned for a while.'));
    expect(await reading).toMatchObject({ code: 'api_key_banned', message: 'Banned for a while.', meta: {} });
  });

  it('lets the calls after a failure that is not a 429 run', async () => {
    const gate = createBatchGate();
    const first = gate.enter(0, reader('a').fn);
    const second = gate.enter(1, reader('b').fn);
    first.settled(new PetStoreError('gone'));
    expect(await second.readInput()).toBe('b');
    const third = gate.enter(2, reader('c').fn);
    second.settled(new PetStoreError('unavailable'));
    expect(await third.readInput()).toBe('c');
  });

  it('counts a call admitted before an earlier call\'s 429 as admitted: its settling changes nothing', async () => {
    const gate = createBatchGate();
    const first = gate.enter(0, reader('a').fn);
    const second = gate.enter(1, reader('b').fn);
    await first.readInput();
    first.settled(limited());
    expect(await second.readInput()).toBe('b');
  });

  it('orders calls by their place in the batch, not by when they enter', async () => {
    const gate = createBatchGate();
    const late = gate.enter(5, reader('late').fn);
    const early = gate.enter(2, reader('early').fn);
    early.settled(limited());
    await expect(late.readInput()).rejects.toMatchObject({ code: 'rate_limited' });
    const after = gate.enter(1, reader('before').fn);
    expect(await after.readInput()).toBe('before');
  });
});
