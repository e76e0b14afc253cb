import {
  PetStoreError,
  toPetStoreError,
  type Admitted,
  type CallContext,
  type InputReader,
  type OperationId,
  type Outcome,
  type PetStore,
  type RateLimitWindow,
} from '@petstore/core';
import { createBatchGate } from './batch-gate.js';

/** The calls of one batch on their way into the core (DECISIONS "Hostile clients and overload"). */
export interface Batch {
  /** Settles once the batch is admitted as one request (`store.admitBatch`); rejects with its one refusal. */
  readonly admitted: Promise<void>;
  /**
   * Runs call `index` of the batch, of operation `operationId`: `run` calls the core (`store.call`, traced or not) with
   * the input reader it is given. Rejects with the batch's refusal if it was not admitted.
   */
  call(
    index: number,
    operationId: OperationId,
    readInput: InputReader,
    run: (readInput: InputReader) => Promise<Outcome<unknown>>,
  ): Promise<Outcome<unknown>>;
}

const isRateLimit = (error: unknown): error is PetStoreError => error instanceof PetStoreError && error.status === 429;

/** How a probe ended: the 429 it was refused with, if it was. */
interface Verdict {
  refusal?: PetStoreError;
}

/** How many more calls fit in the windows that counted a call (the binding one first): unknown is unbounded. */
const roomIn = (windows: readonly RateLimitWindow[] | undefined) => windows?.[0]?.remaining ?? Number.POSITIVE_INFINITY;

/**
 * A batch of one caller's calls as one request at the edge. It is admitted once: without a valid key it is refused
 * once, counted once against the address. Its calls then enter the core as the key's windows have room: the first
 * call alone, and once it is counted, as many of the others together as its windows have room left; the next call
 * after those waits for them to be counted, and so on. A call that waits for one that was refused with 429 is refused
 * with 429 without running; those are counted together by operation (`store.meter(context, n, { refusedWith, operationId })`), and count
 * toward no ban: one batch is one request, so 100 calls on a free key answer 60 and 40 429s and never ban it.
 * Calls that enter together keep their order: once one is refused with 429, the ones after it are refused without
 * reading their input (see `createBatchGate`).
 * @example const batch = createBatch(store, ctx); await batch.admitted; await batch.call(0, 'listPets', readInput, (read) => store.call('listPets', read, ctx))
 */
export function createBatch(store: PetStore, context: CallContext): Batch {
  const admitted = store.admitBatch(context);
  // Each call awaits it; a batch whose calls never came must not leave its refusal unhandled.
  admitted.catch(() => {});
  const gate = createBatchGate();
  // The verdict of the latest call that went in alone, and how many calls may enter after it without waiting.
  let verdict: Promise<Verdict> | undefined;
  let room = 0;
  // The calls that entered together since then, each settled once counted (admitted or refused).
  let entered: Promise<void>[] = [];
  // The calls refused after a 429 in this turn of the event loop, by operation, counted together once it ends.
  let refusals: Map<OperationId, { requests: number; counted: Promise<PetStoreError> }> | undefined;

  function refuse(cause: PetStoreError, operationId: OperationId): Promise<PetStoreError> {
    if (!refusals) {
      const turn = (refusals = new Map());
      queueMicrotask(() => {
        if (refusals === turn) refusals = undefined;
      });
    }
    let pending = refusals.get(operationId);
    if (!pending) {
      const counting = { requests: 0 } as { requests: number; counted: Promise<PetStoreError> };
      counting.counted = Promise.resolve().then(() =>
        store.meter(context, counting.requests, { refusedWith: cause, operationId }).then(
          // Refused as the call they waited for was, with its windows: nothing was counted since.
          (meta) => new PetStoreError(cause.code, cause.message, { meta: { ...cause.meta, ...meta, retryAfter: cause.meta.retryAfter ?? 1 } }),
          (error: unknown) => toPetStoreError(error),
        ),
      );
      refusals.set(operationId, (pending = counting));
    }
    pending.requests++;
    return pending.counted;
  }

  /**
   * Runs a call alone, once the calls that entered before it are counted: the others wait for it to be counted, and
   * learn from its windows how many may follow.
   */
  async function alone(readInput: InputReader, run: (readInput: InputReader) => Promise<Outcome<unknown>>) {
    let decide!: (verdict: Verdict) => void;
    verdict = new Promise((resolve) => (decide = resolve));
    room = 0;
    const before = entered;
    entered = [];
    await Promise.all(before);
    return run((admission?: Admitted) => {
      room = roomIn(admission?.rateLimit);
      decide({});
      return readInput(admission);
    }).then(
      (outcome) => (decide({}), outcome),
      (error: unknown) => {
        if (isRateLimit(error)) decide({ refusal: error });
        else {
          // Failed before its input was read (a sunset, an outage): the room its windows show, if they were counted.
          room = roomIn(error instanceof PetStoreError ? error.meta.rateLimit : undefined);
          decide({});
        }
        throw error;
      },
    );
  }

  return {
    admitted,
    async call(index, operationId, readInput, run) {
      await admitted;
      for (;;) {
        if (verdict === undefined) return alone(readInput, run);
        const waitingFor = verdict;
        const { refusal } = await waitingFor;
        if (refusal) throw await refuse(refusal, operationId);
        if (room > 0) {
          room--;
          let counted!: () => void;
          entered.push(new Promise((resolve) => (counted = resolve)));
          const gated = gate.enter(index, readInput);
          return run((admission?: Admitted) => (counted(), gated.readInput(admission))).then(
            (outcome) => (counted(), gated.settled(), outcome),
            (error: unknown) => {
              counted();
              gated.settled(error);
              throw error;
            },
          );
        }
        // No room left after the call waited for: this one goes in alone next (unless another already did).
        if (verdict === waitingFor) verdict = undefined;
      }
    },
  };
}
