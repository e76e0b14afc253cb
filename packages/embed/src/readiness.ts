import { PetStoreError, type Clock, type PetStore, type ResponseMeta } from '@petstore/core';
import { errorResponse, jsonResponse, responseHeaders, type Resource } from '@petstore/http';

/** How long `/healthz` reuses the answer of a check of its dependencies by default: 1 s. */
export const HEALTH_CACHE_MS = 1_000;

/** Each dependency `/healthz` checks, by name, answering whether it is up. */
export type DependencyChecks = Readonly<Record<string, () => Promise<boolean>>>;

/**
 * The dependencies' state, checked at most once at a time per instance and reused for `cacheMs` after each check
 * ends: callers that come while a check runs wait for it, and callers within `cacheMs` of its end get its answer.
 * So a flood costs at most one check of each dependency per `cacheMs` (plus the check's own time), however many
 * come. Answers the names of the dependencies down (empty when all are up). A check that throws counts as down.
 * @example const down = await createSharedCheck({ database: () => store.isHealthy() }, { cacheMs: 1000, clock })()
 */
export function createSharedCheck(dependencies: DependencyChecks, options: { cacheMs: number; clock: Clock }): () => Promise<readonly string[]> {
  const { cacheMs, clock } = options;
  const names = Object.keys(dependencies);
  const checks = Object.values(dependencies);
  let answer: { down: readonly string[]; at: number } | undefined;
  let running: Promise<readonly string[]> | undefined;
  const check = async () => {
    try {
      const up = await Promise.all(checks.map((one) => one().catch(() => false)));
      const down = Object.freeze(names.filter((_, i) => !up[i]));
      answer = { down, at: clock.now() };
      return down;
    } finally {
      running = undefined;
    }
  };
  return () => {
    if (answer) {
      // A clock set back counts as expired, never as a longer reuse.
      const age = clock.now() - answer.at;
      if (age >= 0 && age < cacheMs) return Promise.resolve(answer.down);
    }
    return (running ??= check());
  };
}

/**
 * `GET /healthz`: readiness, 200 naming the release and what was checked, or 503 `unavailable` naming what is down
 * (for monitoring and alerts). It needs no key and reads none: it is counted against the client's address as a
 * request without a key is (the same per-address limit, whose 429 it gets, with the rate-limit headers), before the
 * dependencies are checked; and the check is the shared one of {@link createSharedCheck}, so a flood of it costs at
 * most one check of each dependency per `cacheMs`.
 * @example resources: { '/healthz': readiness(store, { database: () => store.isHealthy() }, '1.4.0', 1000) }
 */
export function readiness(store: PetStore, dependencies: DependencyChecks, version: string, cacheMs = HEALTH_CACHE_MS): Resource {
  const check = createSharedCheck(dependencies, { cacheMs, clock: store.clock });
  const healthy = JSON.stringify({ status: 'ok', version, checks: Object.fromEntries(Object.keys(dependencies).map((name) => [name, 'ok'])) });
  return async (ctx) => {
    let meta: ResponseMeta = {};
    try {
      // The address alone: a token sent along is not read (no key look-up), nor does a known one lift the limit.
      meta = await store.meter({ clientAddress: ctx.clientAddress }, 1, { answered: 'served' });
    } catch (error) {
      if (error instanceof PetStoreError && error.status === 429) return errorResponse(error);
      // The quota's own store cannot count (it is a dependency too): the check below says so, naming it.
    }
    const down = await check();
    if (down.length === 0) return jsonResponse(200, healthy, responseHeaders(meta));
    ctx.unavailable = down[0] === 'redis' ? 'redis' : 'database';
    const message = `The service is temporarily unavailable: ${down.join(' and ')} cannot be reached.`;
    const details = down.map((name) => ({ path: name, message: `${name} cannot be reached` }));
    return errorResponse(new PetStoreError('unavailable', message, { details, meta: { ...meta, retryAfter: 1 } }));
  };
}
