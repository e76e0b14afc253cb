import { attemptSignal } from './attempt-signal.js';
import { fullJitterBackoff } from './backoff.js';
import type { CallOptions } from './call-options.js';
import type { ClientClock } from './clock.js';
import type { PreparedRequest } from './http-request.js';
import { newIdempotencyKey } from './idempotency-key.js';
import type { Route } from './operations.js';
import { errorFromResponse, PetStoreApiError } from './pet-store-api-error.js';
import type { RateGate } from './rate-gate.js';
import { gateWaits, retryWait } from './retry-decision.js';

/** What every call of one client shares. */
export interface Transport {
  fetch: (url: string, init: RequestInit) => Promise<Response>;
  gate: RateGate;
  clock: ClientClock;
  headers: Record<string, string>;
  maxRetries: number;
  /** The longest wait before a retry, in ms: a 429 or 503 asking for more is not retried. */
  maxRetryWait: number;
  timeout: number | undefined;
  /** Told of every answer (deprecation notices). */
  answered(route: Route, headers: Headers): void;
}

/** A successful answer: its parsed body and headers. */
export interface Answer {
  data: unknown;
  headers: Headers;
}

/**
 * Sends one call and retries it as DECISIONS asks of clients: a 429 `rate_limited` after its `Retry-After` (the gate
 * holds every call of the client until then), a 503 after its `Retry-After` or a backoff, a lost connection after a
 * backoff; a write always under one `Idempotency-Key`, so a retry never creates twice. Never after
 * `api_key_banned`, another 4xx, `maxRetries`, or a wait longer than the caller allows.
 * @example const { data } = await callWithRetries(transport, operations.createPet, prepared, {})
 */
export async function callWithRetries(
  transport: Transport,
  route: Route,
  request: PreparedRequest,
  options: CallOptions,
): Promise<Answer> {
  const { gate, clock, maxRetryWait } = transport;
  const { signal } = options;
  const timeout = options.timeout ?? transport.timeout;
  const deadline = timeout === undefined ? Infinity : clock.now() + timeout;
  const maxRetries = options.maxRetries ?? transport.maxRetries;
  const headers: Record<string, string> = { accept: 'application/json', ...transport.headers, ...options.headers };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  if (route.writes) headers['idempotency-key'] = options.idempotencyKey ?? newIdempotencyKey();
  const mayWait = (ms: number) => ms <= maxRetryWait && clock.now() + ms <= deadline;
  // Whether an earlier attempt may have reached the service without its answer reaching us.
  let unanswered = false;

  for (let attempt = 0; ; attempt++) {
    const release = await gate.admit({ maxWait: maxRetryWait, deadline, signal });
    const aborts = attemptSignal(signal, deadline, clock);
    let response: Response;
    let text: string;
    try {
      response = await transport.fetch(request.url, { method: request.method, headers, body: request.body, signal: aborts.signal });
      text = await response.text();
    } catch (error) {
      if (aborts.reason() !== undefined) throw aborts.reason();
      unanswered = true;
      const wait = fullJitterBackoff(attempt);
      if (attempt >= maxRetries || !mayWait(wait)) throw error;
      await clock.sleep(wait, signal);
      continue;
    } finally {
      release();
      aborts.done();
    }
    gate.observe(response.headers);
    transport.answered(route, response.headers);
    if (response.ok) return { data: parsed(response, text, clock.now()), headers: response.headers };

    const error = errorFromResponse(response, text, clock.now());
    const wait = retryWait(error, attempt, unanswered, gate);
    if (wait === undefined || attempt >= maxRetries || !mayWait(wait)) throw error;
    if (!gateWaits(error)) await clock.sleep(wait, signal);
  }
}

function parsed(response: Response, text: string, now: number): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (cause) {
    const error = errorFromResponse(response, text, now);
    throw new PetStoreApiError({ ...error, message: `The service answered ${response.status} with a body that is not JSON.` }, { cause });
  }
}
