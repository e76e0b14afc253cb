/**
 * The most calls one tRPC batch may hold (DECISIONS "Hostile clients and overload"). Our `/trpc` answers a larger
 * batch 400 `invalid_request` before any call runs; a host gives it to its adapter as tRPC's own `maxBatchSize`, and
 * its clients to their batch links as `maxItems`.
 * @example createHTTPServer({ router, createContext, responseMeta: petsResponseMeta(pets), maxBatchSize })
 */
export const maxBatchSize = 100;
