import { PetStoreError, toPetStoreError, type CallContext, type InputReader, type Outcome, type PetStore } from '@petstore/core';
import { createBatchGate } from './batch-gate.js';

/** The calls of one batch on their way into the core (DECISIONS "Hostile clients and overload"). */
export interface Batch {
  /** Settles once the batch is admitted as one request (`store.admitBatch`); rejects with its one refusal. */
  readonly admitted: Promise<void>;
  /**
   * Runs call `index` of the batch: `run` calls the core (`store.call`, traced or not) with the input reader it is
   * given. Rejects with the batch's refusal if it was not admitted.
   */
  call(index: number, readInput: InputReader, run: (readInput: InputReader) => Promise<Outcome<unknown>>): Promise<Outcome<unknown>>;
}

const isRateLimit = (error: unknown): error is PetStoreError => error instanceof PetStoreError && error.status === 429;

/**
 * A batch of one caller's calls as one request at the edge. It is admitted once: without a valid key it is refused
 * once, counted once against the address. Its first call then enters the core before the others (on a shared quota
 * store a key's counts go one round trip at a time anyway, so this costs no round trip). If the first call is refused
 * with 429, the others are refused with 429 without running, all counted in one count (`store.meter(context, n)`): a
 * batch sent past its limit costs about what one call does. Otherwise the others enter together, each counted on its
 * own, and keep their order: once one is refused with 429, the ones after it are refused without reading their input
 * (see `createBatchGate`).
 * @example const batch = createBatch(store, ctx); await batch.admitted; await batch.call(0, readInput, (read) => store.call('listPets', read, ctx))
 */
export function createBatch(store: PetStore, context: CallContext): Batch {
  const admitted = store.admitBatch(context);
  // Each call awaits it; a batch whose calls never came must not leave its refusal unhandled.
  admitted.catch(() => {});
  const gate = createBatchGate();
  // The first call's 429, or undefined once it was admitted or failed otherwise.
  let first: Promise<PetStoreError | undefined> | undefined;
  // The calls refused after the first one's 429 in this turn of the event loop, counted together once it ends.
  let refusals: { requests: number; counted: Promise<PetStoreError> } | undefined;

  function refuse(cause: PetStoreError): Promise<PetStoreError> {
    if (!refusals) {
      const pending = { requests: 0 } as { requests: number; counted: Promise<PetStoreError> };
      pending.counted = Promise.resolve().then(() => {
        refusals = undefined;
        return store.meter(context, pending.requests).then(
          // Counted after all (a new minute began meanwhile): still refused, as the first call was.
          (meta) => new PetStoreError(cause.code, cause.message, { meta: { ...meta, retryAfter: cause.meta.retryAfter ?? 1 } }),
          (error: unknown) => toPetStoreError(error),
        );
      });
      refusals = pending;
    }
    refusals.requests++;
    return refusals.counted;
  }

  return {
    admitted,
    async call(index, readInput, run) {
      await admitted;
      if (first === undefined) {
        // The others wait for this one to be admitted or refused, so it waits for none of them.
        let decide!: (refusal: PetStoreError | undefined) => void;
        first = new Promise((resolve) => (decide = resolve));
        return run(() => (decide(undefined), readInput())).then(
          (outcome) => (decide(undefined), outcome),
          (error: unknown) => {
            decide(isRateLimit(error) ? error : undefined);
            throw error;
          },
        );
      }
      const refusal = await first;
      if (refusal) throw await refuse(refusal);
      const gated = gate.enter(index, readInput);
      return run(gated.readInput).then(
        (outcome) => (gated.settled(), outcome),
        (error: unknown) => {
          gated.settled(error);
          throw error;
        },
      );
    },
  };
}
