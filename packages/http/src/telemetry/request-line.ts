/**
 * A logger the handlers write to: a pino logger (the host's own included), or any object with pino's
 * `info(fields, message)` shape. `warn` and `error` serve the outage and fault lines; `isLevelEnabled`, when there,
 * spares building a line nobody keeps.
 */
export interface PetStoreLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
  isLevelEnabled?(level: string): boolean;
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

const format = (level: number, time: string, chindings: string, entry: RequestEntry) =>
  `{"level":${level}${time}${chindings}${entry.reqId === undefined ? '' : `,"reqId":${JSON.stringify(entry.reqId)}`},"method":${JSON.stringify(entry.method)},"route":${JSON.stringify(entry.route)},"status":${entry.status},"durationMs":${entry.durationMs}${entry.keyId === undefined ? '' : `,"keyId":${entry.keyId}`},"msg":"request"}\n`;

const fieldsOf = ({ keyId, ...entry }: RequestEntry) => (keyId === undefined ? entry : { ...entry, keyId });

const PROBES: readonly RequestEntry[] = [
  { reqId: 'probe"\\\u2028', method: 'GET', route: '/v1/pets/{petId}', status: 200, durationMs: 1.25, keyId: 7 },
  { reqId: undefined, method: 'POST', route: 'unmatched', status: 404, durationMs: 0, keyId: undefined },
];

/**
 * pino's state, when the logger is a pino of a checked version whose `logger.info(fields, 'request')` writes exactly
 * the line the template writes: checked once by letting the logger write two probe lines into a stream of our own
 * (its formatters, mixin, redaction, message key and bindings all apply), never into the host's destination.
 */
function pinoState(logger: PetStoreLogger): PinoState | undefined {
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
  const probe = Object.create(logger) as PetStoreLogger;
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
 * The request log line: exactly the JSON pino writes for `logger.info({ reqId, method, route, status, durationMs,
 * keyId }, 'request')`. With a pino logger of a checked version ({@link PINO_VERSIONS_CHECKED}) whose line the
 * template reproduces, it is formatted from one template and written straight to the logger's destination (pino's
 * general path, merging and serialising key by key, cost about 3 µs per request); any other logger gets
 * `logger.info(fields, 'request')`.
 * @example const logRequest = requestLine(logger); logRequest({ reqId, method, route, status, durationMs, keyId })
 */
export function requestLine(logger: PetStoreLogger): (entry: RequestEntry) => void {
  const enabled = logger.isLevelEnabled ? () => logger.isLevelEnabled!('info') : () => true;
  // Decided on the first line written: pino makes `info` a no-op while the level is above it, so it cannot be probed.
  let state: PinoState | null | undefined;
  return (entry) => {
    if (!enabled()) return;
    if (state === undefined) state = pinoState(logger) ?? null;
    if (state === null) return logger.info(fieldsOf(entry), 'request');
    state.stream.write(format(state.level, state.time(), state.chindings(), entry));
  };
}

/**
 * Whether {@link requestLine} writes this logger's lines from its template (a pino of a checked version whose line
 * it reproduces) rather than through `logger.info`.
 * @example usesPinoFastPath(pino()) // true on a checked pino version with default options
 */
export function usesPinoFastPath(logger: PetStoreLogger): boolean {
  return pinoState(logger) !== undefined;
}
