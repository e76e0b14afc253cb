import { TRPCClientError, type Operation, type TRPCLink } from '@trpc/client';
import type { AnyRouter } from '@trpc/server';
import { observable, type Unsubscribable } from '@trpc/server/observable';
import { fullJitterBackoff } from '../backoff.js';
import { systemClock } from '../clock.js';
import { newIdempotencyKey } from '../idempotency-key.js';
import { retryAfterOf } from '../pet-store-api-error.js';
import { createRateGate } from '../rate-gate.js';
import { gateWaits, retryWait, type Refusal } from '../retry-decision.js';
import type { RetryLinkOptions } from './retry-options.js';

type Meta = { response?: Response } | undefined;
type PetStoreData = { httpStatus?: number; error?: { code?: string; status?: number } } | undefined;

/** The refusal in a tRPC error, or undefined when no answer came (a lost connection). */
function refusalOf(error: TRPCClientError<AnyRouter>, now: number): Refusal | undefined {
  const response = (error.meta as Meta)?.response;
  const data = error.data as PetStoreData;
  const status = data?.error?.status ?? data?.httpStatus ?? response?.status;
  if (status === undefined) return undefined;
  return { status, code: data?.error?.code ?? '', retryAfter: response ? retryAfterOf(response.headers, now) : undefined };
}

/**
 * A tRPC link that retries the service's 429 `rate_limited` and 503 as the REST client does: after `Retry-After`
 * (the link holds every call until a refused window ends), else with exponential backoff and full jitter; never
 * `api_key_banned` or another error; at most `maxRetries` times, and never a wait over `maxRetryWait`. Queries are
 * also retried after a lost connection; mutations carry a key in `op.context.idempotencyKey`, and are retried after
 * a 503 or a lost connection only with `idempotencyKeys: true`. Put it before the terminating link.
 * @example createTRPCClient<AppRouter>({ links: [petStoreRetryLink({ maxRetries: 2 }), httpBatchLink({ url, headers })] })
 */
export function petStoreRetryLink<TRouter extends AnyRouter>(options: RetryLinkOptions = {}): TRPCLink<TRouter> {
  const clock = options.clock ?? systemClock;
  const maxRetries = options.maxRetries ?? 2;
  const maxRetryWait = options.maxRetryWait ?? 60_000;
  const gate = createRateGate({ maxConcurrency: options.maxConcurrency ?? 8, clock });

  return () =>
    ({ op, next }) =>
      observable((observer) => {
        const stop = new AbortController();
        const signal = op.signal ? anySignal(op.signal, stop.signal) : stop.signal;
        let current: Unsubscribable | undefined;
        const mutation = op.type === 'mutation';
        const key = mutation ? (typeof op.context.idempotencyKey === 'string' ? op.context.idempotencyKey : newIdempotencyKey()) : undefined;
        const sent: Operation = key === undefined ? op : { ...op, context: { ...op.context, idempotencyKey: key } };
        // Whether an earlier attempt may have reached the service without its answer reaching us.
        let unanswered = false;

        const fail = (error: unknown) => observer.error(error instanceof TRPCClientError ? error : TRPCClientError.from(error as Error));

        async function attempt(count: number) {
          let release: () => void;
          try {
            release = await gate.admit({ maxWait: maxRetryWait, deadline: Infinity, signal });
          } catch (error) {
            if (!stop.signal.aborted) fail(error);
            return;
          }
          current = next(sent).subscribe({
            next(envelope) {
              const response = (envelope.context as Meta)?.response;
              if (response) gate.observe(response.headers);
              observer.next(envelope);
            },
            complete() {
              release();
              observer.complete();
            },
            error(error) {
              release();
              void retry(error, count);
            },
          });
        }

        async function retry(error: TRPCClientError<TRouter>, count: number) {
          if (signal.aborted) return fail(error);
          const refusal = refusalOf(error, clock.now());
          let wait: number | undefined;
          if (refusal === undefined) {
            unanswered = true;
            wait = mutation && !options.idempotencyKeys ? undefined : fullJitterBackoff(count);
          } else {
            wait = retryWait(refusal, count, unanswered, gate);
            if (mutation && !options.idempotencyKeys && refusal.status !== 429) wait = undefined;
          }
          if (wait === undefined || count >= maxRetries || wait > maxRetryWait) return fail(error);
          try {
            if (!refusal || !gateWaits(refusal)) await clock.sleep(wait, signal);
          } catch {
            return fail(error);
          }
          void attempt(count + 1);
        }

        void attempt(0);
        return () => {
          stop.abort();
          current?.unsubscribe();
        };
      });
}

/** A signal that aborts when either does. */
function anySignal(first: AbortSignal, second: AbortSignal): AbortSignal {
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (first.aborted || second.aborted) abort();
  first.addEventListener('abort', abort, { once: true });
  second.addEventListener('abort', abort, { once: true });
  return controller.signal;
}
