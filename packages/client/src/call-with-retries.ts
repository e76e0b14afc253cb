import { fullJitterBackoff } from './backoff.js';
import type { CallOptions } from './call-options.js';
import { callSignal } from './call-signal.js';
import type { ClientClock } from './clock.js';
import type { PreparedRequest } from './http-request.js';
import { newIdempotencyKey } from './idempotency-key.js';
import type { Route } from './operations.js';
import { errorFromResponse, PetStoreApiError } from './pet-store-api-error.js';
import type { RateGate } from './rate-gate.js';
import { tell } from './rate-limit-fields.js';
import { readBody } from './read-body.js';
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
  /** Milliseconds a whole call may take (`Infinity` for no limit). */
  timeout: number;
  /** The largest answer body read, in bytes. */
  maxResponseBytes: number;
  /** Told of every answer (deprecation notices, rate-limit fields). */
  answered(route: Route, status: number, headers: Headers): void;
}

/** A successful answer: its parsed body and headers. */
export interface Answer {
  data: unknown;
  headers: Headers;
  status: number;
}

/**
 * Sends one call and retries it as DECISIONS asks of clients: a 429 `rate_limited` after its `Retry-After` (the gate
 * holds every call of the client until then), a 503 after its `Retry-After` or a backoff, a lost connection after a
 * backoff; a write always under one `Idempotency-Key`, so a retry never creates twice. Never after
 * `api_key_banned`, another 4xx, `maxRetries`, or a wait longer than the caller allows. The call's `timeout` covers
 * all of it, the queue included, and no body is read past `maxResponseBytes`.
 * @example const { data } = await callWithRetries(transport, operations.createPet, prepared, {})
 */
export async function callWithRetries(
  transport: Transport,
  route: Route,
  request: PreparedRequest,
  options: CallOptions,
): Promise<Answer> {
  const timeout = options.timeout ?? transport.timeout;
  const call = callSignal(options.signal, timeout);
  try {
    return await attempts(transport, route, request, options, call.signal, transport.clock.now() + timeout);
  } catch (error) {
    throw call.signal.aborted ? call.signal.reason : error;
  } finally {
    call.done();
  }
}

async function attempts(
  transport: Transport,
  route: Route,
  request: PreparedRequest,
  options: CallOptions,
  signal: AbortSignal,
  deadline: number,
): Promise<Answer> {
  const { gate, clock, maxRetryWait } = transport;
  const maxRetries = options.maxRetries ?? transport.maxRetries;
  const headers: Record<string, string> = { accept: 'application/json', ...transport.headers, ...options.headers };
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  if (route.writes) headers['idempotency-key'] = options.idempotencyKey ?? newIdempotencyKey();
  if (route.writes && options.ifMatch !== undefined) headers['if-match'] = options.ifMatch;
  const mayWait = (ms: number) => ms <= maxRetryWait && clock.now() + ms <= deadline;
  // An operation with a limit of its own (getUsage) counts against no window: the gate does not hold it, and its own
  // 429 (whose headers are that limit's) closes the gate for no other call; a ban closes it all the same.
  const unmetered = route.ownLimitPerMinute !== undefined;
  const closesGate = (status: number, code?: string) => !unmetered || status !== 429 || code === 'api_key_banned';
  const told = (status: number, answer: Headers) => {
    transport.answered(route, status, answer);
    if (options.onRateLimit) tell(options.onRateLimit, status, answer);
  };
  // Whether an earlier attempt may have reached the service without its answer reaching us.
  let unanswered = false;

  for (let attempt = 0; ; attempt++) {
    let response: Response;
    let text: string;
    try {
      ({ response, text } = await gate.send(
        async () => {
          const sentAt = clock.now();
          const response = await transport.fetch(request.url, { method: request.method, headers, body: request.body, signal });
          if (closesGate(response.status)) gate.observe(response.status, response.headers, sentAt);
          return { response, text: await readBody(response, transport.maxResponseBytes) };
        },
        { maxWait: maxRetryWait, deadline, signal, unmetered },
      ));
    } catch (error) {
      if (signal.aborted || error instanceof PetStoreApiError) throw error;
      unanswered = true;
      const wait = fullJitterBackoff(attempt);
      if (attempt >= maxRetries || !mayWait(wait)) throw error;
      await clock.sleep(wait, signal);
      continue;
    }
    told(response.status, response.headers);
    // 304: the `If-None-Match` of a conditional read matched, and there is no body (see `withETag`).
    if (response.ok || response.status === 304) {
      return { data: parsed(response, text, clock.now()), headers: response.headers, status: response.status };
    }

    const error = errorFromResponse(response, text, clock.now());
    const ownGate = closesGate(error.status, error.code) ? gate : undefined;
    const wait = retryWait(error, attempt, unanswered, ownGate);
    if (wait === undefined || attempt >= maxRetries || !mayWait(wait)) throw error;
    if (unmetered || !gateWaits(error)) await clock.sleep(wait, signal);
  }
}

function parsed(response: Response, text: string, now: number): unknown {
  // 204 answers no body: the operation's output is `null`, as on tRPC and in-process.
  if (response.status === 204) return null;
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch (cause) {
    const error = errorFromResponse(response, text, now);
    throw new PetStoreApiError({ ...error, message: `The service answered ${response.status} with a body that is not JSON.` }, { cause });
  }
}
