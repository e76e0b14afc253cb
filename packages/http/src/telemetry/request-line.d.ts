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
export declare const PINO_VERSIONS_CHECKED: readonly string[];
/**
 * The request log line: exactly the JSON pino writes for `logger.info({ reqId, method, route, status, durationMs,
 * keyId }, 'request')`. With a pino logger of a checked version ({@link PINO_VERSIONS_CHECKED}) whose line the
 * template reproduces, it is formatted from one template and written straight to the logger's destination (pino's
 * general path, merging and serialising key by key, cost about 3 µs per request); any other logger gets
 * `logger.info(fields, 'request')`.
 * @example const logRequest = requestLine(logger); logRequest({ reqId, method, route, status, durationMs, keyId })
 */
export declare function requestLine(logger: PetStoreLogger): (entry: RequestEntry) => void;
/**
 * Whether {@link requestLine} writes this logger's lines from its template (a pino of a checked version whose line
 * it reproduces) rather than through `logger.info`.
 * @example usesPinoFastPath(pino()) // true on a checked pino version with default options
 */
export declare function usesPinoFastPath(logger: PetStoreLogger): boolean;
//# sourceMappingURL=request-line.d.ts.map