/**
 * A logger the handlers write to: a pino logger (the host's own included), or any object with pino's
 * `info(fields, message)` shape. `error`, when there, gets the fault lines (else `info` does); `isLevelEnabled`, when
 * there, spares building a line nobody keeps.
 * @example createHttpHandler(store, { logger: { info: (fields, message) => console.log(message, fields) } })
 */
export interface RequestLogger {
  info(fields: object, message: string): void;
  /** When there, gets the request lines of health checks (`/healthz`, `/livez`); without it they are not written. */
  debug?(fields: object, message: string): void;
  warn?(fields: object, message: string): void;
  error?(fields: object, message: string): void;
  isLevelEnabled?(level: string): boolean;
}

/** A logger with pino's `info`, `warn` and `error`: what the outage log and load shedding write to. */
export interface PetStoreLogger extends RequestLogger {
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** The fields of the one log line each request gets. */
export interface RequestEntry {
  reqId: string | undefined;
  method: string;
  /** The route template (`/v1/pets/{petId}`), never the raw path; `unmatched` when none matched. */
  route: string;
  status: number;
  durationMs: number;
  keyId: number | undefined;
  /** The trace and span of the request's server span, when one is recorded (an SDK is registered): for correlation. */
  trace_id?: string | undefined;
  span_id?: string | undefined;
}

/**
 * The pino versions whose internal state (`pino.symbols`: the stream, the time function and the bindings) the fast
 * path was checked against, byte for byte (request-line.test.ts). Any other version, or any logger that is not pino,
 * goes through `logger.info(fields, 'request')`.
 */
export const PINO_VERSIONS_CHECKED: readonly string[] = Object.freeze(['9.14.0', '10.4.0']);

type Write = (line: string) => void;

interface PinoState {
  stream: { write: Write };
  /** The logger's own time function and bindings, read at each line (`setBindings` changes them). */
  time: () => string;
  chindings: () => string;
  level: number;
}

/** pino's symbols of the state the fast path reads, found on the logger itself (so no pino import is needed). */
const WANTED = ['pino.stream', 'pino.time', 'pino.chindings'] as const;

function symbolsOf(logger: object): Map<string, symbol> {
  const found = new Map<string, symbol>();
  for (let layer: object | null = logger; layer !== null && layer !== Object.prototype; layer = Object.getPrototypeOf(layer)) {
    for (const symbol of Object.getOwnPropertySymbols(layer)) {
      const name = symbol.description;
      if (name !== undefined && (WANTED as readonly string[]).includes(name) && !found.has(name)) found.set(name, symbol);
    }
  }
  return found;
}

// Trace ids are lower-case hex (W3C Trace Context), so they need no escaping.
const format = (level: number, time: string, chindings: string, entry: RequestEntry) =>
  `{"level":${level}${time}${chindings}${entry.reqId === undefined ? '' : `,"reqId":${JSON.stringify(entry.reqId)}`},"method":${JSON.stringify(entry.method)},"route":${JSON.stringify(entry.route)},"status":${entry.status},"durationMs":${entry.durationMs}${entry.keyId === undefined ? '' : `,"keyId":${entry.keyId}`}${entry.trace_id === undefined ? '' : `,"trace_id":"${entry.trace_id}","span_id":"${entry.span_id}"`},"msg":"request"}\n`;

/**
 * pino's fields of an entry: `keyId` and the trace ids only when there are some. Spelled out: a rest pattern here
 * costs microseconds.
 */
function fieldsOf(entry: RequestEntry): object {
  if (entry.trace_id !== undefined) return entry;
  return entry.keyId === undefined
    ? { reqId: entry.reqId, method: entry.method, route: entry.route, status: entry.status, durationMs: entry.durationMs }
    : { reqId: entry.reqId, method: entry.method, route: entry.route, status: entry.status, durationMs: entry.durationMs, keyId: entry.keyId };
}

const PROBES: readonly RequestEntry[] = [
  { reqId: 'probe"\\\u2028', method: 'GET', route: '/v1/pets/{petId}', status: 200, durationMs: 1.25, keyId: 7 },
  { reqId: undefined, method: 'POST', route: 'unmatched', status: 404, durationMs: 0, keyId: undefined },
  {
    reqId: 'r',
    method: 'GET',
    route: '/v1/pets',
    status: 200,
    durationMs: 0.5,
    keyId: 1,
    trace_id: '0af7651916cd43dd8448eb211c80319c',
    span_id: 'b7ad6b7169203331',
  },
];

/**
 * pino's state, when the logger is a pino of a checked version whose `logger.info(fields, 'request')` writes exactly
 * the line the template writes: checked once by letting the logger write two probe lines into a stream of our own
 * (its formatters, mixin, redaction, message key and bindings all apply), never into the host's destination.
 */
function pinoState(logger: RequestLogger): PinoState | undefined {
  const { version, levels } = logger as { version?: unknown; levels?: { values?: Record<string, number> } };
  if (typeof version !== 'string' || !PINO_VERSIONS_CHECKED.includes(version)) return undefined;
  const level = levels?.values?.['info'];
  const symbols = symbolsOf(logger);
  const streamSym = symbols.get('pino.stream');
  const timeSym = symbols.get('pino.time');
  const chindingsSym = symbols.get('pino.chindings');
  if (level === undefined || !streamSym || !timeSym || !chindingsSym) return undefined;
  const internals = logger as unknown as Record<symbol, unknown>;
  const stream = internals[streamSym] as (PinoState['stream'] & Record<symbol, unknown>) | undefined;
  const time = internals[timeSym];
  const chindings = internals[chindingsSym];
  if (typeof stream?.write !== 'function' || typeof time !== 'function' || typeof chindings !== 'string') return undefined;
  // Destinations that want pino's metadata (multistream), and hooks that see each call, need pino's own path.
  if (stream[Symbol.for('pino.metadata')] || (internals[Symbol.for('pino.hooks')] as { logMethod?: unknown } | undefined)?.logMethod) {
    return undefined;
  }
  const written: string[] = [];
  const probe = Object.create(logger) as RequestLogger;
  Object.defineProperty(probe, streamSym, { value: { write: (line: string) => void written.push(line) } });
  Object.defineProperty(probe, timeSym, { value: () => ',"time":1' });
  for (const entry of PROBES) probe.info(fieldsOf(entry), 'request');
  const expected = PROBES.map((entry) => format(level, ',"time":1', chindings, entry));
  if (written.length !== expected.length || written.some((line, i) => line !== expected[i])) return undefined;
  return {
    stream,
    time: () => (internals[timeSym] as () => string).call(logger),
    chindings: () => internals[chindingsSym] as string,
    level,
  };
}

/**
 * Whether a route is a health check's (`/healthz`, `/livez`, under any base path): a balancer asks several times a
 * second per instance, so their lines go to `debug`, never `info`, and the request log stays the API's.
 */
const isHealthCheck = (route: string) => route.endsWith('/healthz') || route.endsWith('/livez');

/** Runs `write` when the event loop's current turn ends (after its I/O callbacks). */
const atTurnEnd: (write: () => void) => void = globalThis.setImmediate ?? ((write) => void setTimeout(write, 0));

/**
 * The request log line (at `debug` for health checks, see `isHealthCheck`; every other request at `info`): exactly the JSON pino writes for `logger.info({ reqId, method, route, status, durationMs,
 * keyId, trace_id, span_id }, 'request')` (the trace ids while the request's server span is recorded: the line is
 * written when the turn ends, after the span's context is gone, so a pino `mixin` could not add them). The lines of one event-loop turn are written together when it ends, so a request pays for
 * keeping its fields, not for formatting and writing: with a pino logger of a checked version
 * ({@link PINO_VERSIONS_CHECKED}) whose line the template reproduces, they are formatted from one template and handed
 * to the logger's destination in one write (pino's general path merges and serialises key by key, and its
 * destination costs about 2 µs a write); any other logger gets `logger.info(fields, 'request')` for each. The time
 * and bindings are the logger's when the turn ends.
 * @example const logRequest = requestLine(logger); logRequest({ reqId, method, route, status, durationMs, keyId })
 */
export function requestLine(logger: RequestLogger): (entry: RequestEntry) => void {
  const enabled = logger.isLevelEnabled ? () => logger.isLevelEnabled!('info') : () => true;
  // Decided on the first line written: pino makes `info` a no-op while the level is above it, so it cannot be probed.
  let state: PinoState | null | undefined;
  let held: RequestEntry[] = [];
  const writeHeld = () => {
    const entries = held;
    held = [];
    if (!state) {
      for (const entry of entries) logger.info(fieldsOf(entry), 'request');
      return;
    }
    const { level, stream } = state;
    const time = state.time();
    const chindings = state.chindings();
    let lines = '';
    for (const entry of entries) lines += format(level, time, chindings, entry);
    stream.write(lines);
  };
  const debugEnabled = logger.isLevelEnabled ? () => logger.isLevelEnabled!('debug') : () => true;
  return (entry) => {
    if (isHealthCheck(entry.route)) {
      if (logger.debug && debugEnabled()) logger.debug(fieldsOf(entry), 'request');
      return;
    }
    if (!enabled()) return;
    if (state === undefined) state = pinoState(logger) ?? null;
    if (held.push(entry) === 1) atTurnEnd(writeHeld);
  };
}

/**
 * Whether {@link requestLine} writes this logger's lines from its template (a pino of a checked version whose line
 * it reproduces) rather than through `logger.info`.
 * @example usesPinoFastPath(pino()) // true on a checked pino version with default options
 */
export function usesPinoFastPath(logger: RequestLogger): boolean {
  return pinoState(logger) !== undefined;
}
