import { TRPCClientError, type Operation, type OperationResultEnvelope, type TRPCLink } from '@trpc/client';
import type { AnyRouter } from '@trpc/server';
import { observable, type Unsubscribable } from '@trpc/server/observable';
import { fullJitterBackoff } from '../backoff.js';
import { callSignal } from '../call-signal.js';
import { clientDefaults } from '../client-defaults.js';
import { systemClock } from '../clock.js';
import { newIdempotencyKey } from '../idempotency-key.js';
import { PetStoreApiError, retryAfterOf } from '../pet-store-api-error.js';
import { createRateGate } from '../rate-gate.js';
import { tell, type RateLimitHandler } from '../rate-limit-fields.js';
import { gateWaits, retryWait, type Refusal } from '../retry-decision.js';
import type { RetryLinkOptions } from './retry-options.js';

type Meta = { response?: Response } | undefined;
type PetStoreData = { httpStatus?: number; error?: { code?: string; status?: number } } | undefined;
/** How one attempt ended: its envelopes, or its error; with the answer when one came. */
type Outcome<TRouter extends AnyRouter> =
  | { ok: true; envelopes: OperationResultEnvelope<unknown, TRPCClientError<TRouter>>[]; response: Response | undefined }
  | { ok: false; error: TRPCClientError<TRouter>; response: Response | undefined };

/** The refusal in a tRPC error, or undefined when no answer came (a lost connection). */
function refusalOf(error: TRPCClientError<AnyRouter>, now: number): Refusal | undefined {
  const response = (error.meta as Meta)?.response;
  const data = error.data as PetStoreData;
  const status = data?.error?.status ?? data?.httpStatus ?? response?.status;
  if (status === undefined) return undefined;
  return { status, code: data?.error?.code ?? '', retryAfter: response ? retryAfterOf(response.headers, now) : undefined };
}

/** Whether the client itself refused the answer (a body past `maxResponseBytes`): final, like a 4xx. */
const refusedLocally = (error: unknown): boolean =>
  error instanceof PetStoreApiError || (error instanceof Error && error.cause !== error && refusedLocally(error.cause));

/**
 * A tRPC link that retries the service's 429 `rate_limited` and 503 as the REST client does: after `Retry-After`
 * (the link holds every call until a refused window ends, at most `maxRetryWait`), else with exponential backoff and
 * full jitter; never `api_key_banned` or another error; at most `maxRetries` times, and never a wait over
 * `maxRetryWait`. Every call ends within `timeout`, its wait for one of the `maxConcurrency` slots included. Queries
 * are also retried after a lost connection; mutations carry a key in `op.context.idempotencyKey`, and are retried
 * after a 503 or a lost connection only with `idempotencyKeys: true`. Answers' rate-limit fields go to
 * `onRateLimit`, and to a call's own `context.onRateLimit`. Put it before the terminating link.
 * @example createTRPCClient<AppRouter>({ links: [petStoreRetryLink({ maxRetries: 2 }), httpBatchLink({ url, headers })] })
 */
export function petStoreRetryLink<TRouter extends AnyRouter>(options: RetryLinkOptions = {}): TRPCLink<TRouter> {
  const clock = options.clock ?? systemClock;
  const maxRetries = options.maxRetries ?? clientDefaults.maxRetries;
  const maxRetryWait = options.maxRetryWait ?? clientDefaults.maxRetryWait;
  const timeout = options.timeout ?? clientDefaults.timeout;
  const gate = createRateGate({ maxConcurrency: options.maxConcurrency ?? clientDefaults.maxConcurrency, maxBlock: maxRetryWait, clock });

  return () =>
    ({ op, next }) =>
      observable((observer) => {
        const stop = new AbortController();
        const call = callSignal(op.signal ? anySignal(op.signal, stop.signal) : stop.signal, timeout);
        const deadline = clock.now() + timeout;
        let current: Unsubscribable | undefined;
        const mutation = op.type === 'mutation';
        const key = mutation ? (typeof op.context.idempotencyKey === 'string' ? op.context.idempotencyKey : newIdempotencyKey()) : undefined;
        const context = key === undefined ? op.context : { ...op.context, idempotencyKey: key };
        const sent: Operation = { ...op, context, signal: call.signal };
        const handlers = [options.onRateLimit, op.context.onRateLimit as RateLimitHandler | undefined].filter((handler) => typeof handler === 'function');

        const fail = (error: unknown) => {
          call.done();
          if (stop.signal.aborted) return;
          const reason = call.signal.aborted ? call.signal.reason : error;
          observer.error(reason instanceof TRPCClientError ? reason : TRPCClientError.from(reason as Error));
        };

        /** One attempt in a slot: ends when the link after this one ends, or when the call's signal aborts. */
        const attempt = () =>
          new Promise<Outcome<TRouter>>((resolve) => {
            const sentAt = clock.now();
            const envelopes: OperationResultEnvelope<unknown, TRPCClientError<TRouter>>[] = [];
            const answered = (response: Response | undefined) => {
              call.signal.removeEventListener('abort', onAbort);
              if (response) gate.observe(response.status, response.headers, sentAt);
              return response;
            };
            const onAbort = () => {
              current?.unsubscribe();
              resolve({ ok: false, error: TRPCClientError.from(call.signal.reason as Error), response: undefined });
            };
            call.signal.addEventListener('abort', onAbort, { once: true });
            current = next(sent).subscribe({
              next: (envelope) => void envelopes.push(envelope),
              complete: () => resolve({ ok: true, envelopes, response: answered((envelopes[0]?.context as Meta)?.response) }),
              error: (error) => resolve({ ok: false, error, response: answered((error.meta as Meta)?.response) }),
            });
          });

        async function run() {
          // Whether an earlier attempt may have reached the service without its answer reaching us.
          let unanswered = false;
          for (let count = 0; ; count++) {
            let outcome: Outcome<TRouter>;
            try {
              outcome = await gate.send(attempt, { maxWait: maxRetryWait, deadline, signal: call.signal });
              if (outcome.response) for (const handler of handlers) tell(handler, outcome.response.status, outcome.response.headers);
            } catch (error) {
              return fail(error);
            }
            if (outcome.ok) {
              call.done();
              for (const envelope of outcome.envelopes) observer.next(envelope);
              return observer.complete();
            }
            const { error } = outcome;
            if (call.signal.aborted || refusedLocally(error)) return fail(error);
            const refusal = refusalOf(error, clock.now());
            let wait: number | undefined;
            if (refusal === undefined) {
              unanswered = true;
              wait = mutation && !options.idempotencyKeys ? undefined : fullJitterBackoff(count);
            } else {
              wait = retryWait(refusal, count, unanswered, gate);
              if (mutation && !options.idempotencyKeys && refusal.status !== 429) wait = undefined;
            }
            if (wait === undefined || count >= maxRetries || wait > maxRetryWait || clock.now() + wait > deadline) return fail(error);
            try {
              if (!refusal || !gateWaits(refusal)) await clock.sleep(wait, call.signal);
            } catch {
              return fail(error);
            }
          }
        }

        void run();
        return () => {
          stop.abort();
          current?.unsubscribe();
        };
      });
}

/** A signal that aborts when either does, with its reason. */
function anySignal(first: AbortSignal, second: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const abort = (signal: AbortSignal) => () => controller.abort(signal.reason);
  if (first.aborted) abort(first)();
  else if (second.aborted) abort(second)();
  first.addEventListener('abort', abort(first), { once: true });
  second.addEventListener('abort', abort(second), { once: true });
  return controller.signal;
}
