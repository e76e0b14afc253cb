import { PetStoreError, type Admitted, type InputReader } from '@petstore/core';

/** One call's passage through a {@link BatchGate}. */
export interface GatedCall {
  /** The call's input reader, for `store.call`: it reads nothing once an earlier call of the batch was refused with 429. */
  readonly readInput: (admission?: Admitted) => Promise<unknown>;
  /** Tells the gate how the call ended (its error, if it failed); call it whatever the outcome. */
  settled(error?: unknown): void;
}

/**
 * The order of a batch's calls: once a call is refused with 429, the calls after it are refused with that 429 too,
 * without reading their input or running (each is still counted by the core, as every call of a batch is).
 */
export interface BatchGate {
  /** Call `index` of the batch enters the core with its input reader. */
  enter(index: number, readInput: InputReader): GatedCall;
}

interface Entry {
  index: number;
  /** The 429 the call was refused with before it was admitted; undefined once it was admitted or failed otherwise. */
  verdict: Promise<PetStoreError | undefined>;
}

const refusedBefore = (error: unknown) => error instanceof PetStoreError && error.status === 429;

/**
 * A gate for the calls of one batch. A call is admitted when the core asks for its input (after the key, the quota
 * and the sunset); before reading it, the call waits for the calls before it that have entered the gate to be
 * admitted or refused, and is refused itself if one of them was refused with 429.
 * @example const gate = createBatchGate(); const call = gate.enter(i, readInput); store.call(id, call.readInput, ctx).then(() => call.settled(), call.settled)
 */
export function createBatchGate(): BatchGate {
  const entries: Entry[] = [];
  return {
    enter(index, readInput) {
      let decide!: (refusal: PetStoreError | undefined) => void;
      const entry: Entry = { index, verdict: new Promise((resolve) => (decide = resolve)) };
      entries.push(entry);
      return {
        async readInput(admission) {
          decide(undefined);
          for (const earlier of entries) {
            if (earlier.index >= index) continue;
            const refusal = await earlier.verdict;
            if (refusal) {
              const { retryAfter } = refusal.meta;
              throw new PetStoreError(refusal.code, refusal.message, { meta: retryAfter === undefined ? {} : { retryAfter } });
            }
          }
          return readInput(admission);
        },
        settled(error) {
          decide(refusedBefore(error) ? (error as PetStoreError) : undefined);
        },
      };
    },
  };
}
