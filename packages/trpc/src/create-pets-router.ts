import type { IncomingMessage } from 'node:http';
import { operations, Pets, PetStoreError, type OperationId, type PetStore, type Principal, type ResponseMeta } from '@petstore/core';
import { createEdge, fromFetchRequest, fromNodeRequest, responseHeaders, type EdgeOptions } from '@petstore/http';
import type { TRPCMutationProcedure, TRPCProcedureBuilder, TRPCQueryProcedure, TRPCUnsetMarker } from '@trpc/server';
import { z } from 'zod';
import { petStoreErrorIn, toTrpcError } from './errors/error-mapping.js';
import { nextPageUrl } from './procedures.js';

type Ops = typeof operations;

/** Who is calling, as the host's context says: an API key (verified by the store), or a principal the host vouches for. */
export type Caller =
  | { apiKey?: string | undefined; clientAddress?: string | undefined; idempotencyKey?: string | undefined }
  | { principal: Principal; clientAddress?: string | undefined };

/** A host context the default principal can read: the request its tRPC adapter received (node or Fetch). */
export interface RequestBearingContext {
  req: IncomingMessage | Request;
}

/** Maps the host's context to the caller; may be async (a session look-up). */
export type PrincipalHook<TContext> = (ctx: TContext) => Caller | Promise<Caller>;

/** A page of `pets.page`: the animals and the cursor of the next page (null on the last). */
export const PetsPage = z.strictObject({ items: Pets, nextCursor: z.string().nullable() });

/** An operation's procedure with the given output: a mutation when the operation writes, else a query. */
type ProcedureOf<K extends OperationId, TOutput, TMeta> = Ops[K]['writes'] extends true
  ? TRPCMutationProcedure<{ input: z.input<Ops[K]['input']>; output: TOutput; meta: TMeta }>
  : TRPCQueryProcedure<{ input: z.input<Ops[K]['input']>; output: TOutput; meta: TMeta }>;

/**
 * The procedures of every operation (named by its `procedure`), and the page procedure of each that declares one
 * (`page`: `{ items, nextCursor }`), typed from the core's definitions.
 */
export type PetsProcedures<TMeta = object> = {
  [K in OperationId as Ops[K]['procedure']]: ProcedureOf<K, z.output<Ops[K]['output']>, TMeta>;
} & {
  [K in OperationId as NonNullable<Ops[K]['pageProcedure']>]: ProcedureOf<
    K,
    { items: z.output<Ops[K]['output']>; nextCursor: string | null },
    TMeta
  >;
};

/** What {@link createPetsRouter} is built from; `principal` may be left out only when the context carries `req`. */
export type PetsRouterOptions<TContext> = {
  /** The store, or how to find it in the context. */
  store: PetStore | ((ctx: TContext) => PetStore);
  /** The absolute URL the host serves this router's procedures under (`https://app.example.com/api/trpc/pets`'s parent), for next-page `Link` headers. */
  url?: ((ctx: TContext) => string | undefined) | undefined;
  /** With the default principal: whom to trust for the client's address (see `createEdge`). */
  edge?: EdgeOptions | undefined;
} & (TContext extends RequestBearingContext ? { principal?: PrincipalHook<TContext> } : { principal: PrincipalHook<TContext> });

/** The procedures to mount, and the `responseMeta` that puts rate-limit headers on the host's HTTP response. */
export interface PetsRouter<TMeta> {
  /** Mount under any name: `t.router({ pets: petsRouter.procedures })`. */
  procedures: PetsProcedures<TMeta>;
  /**
   * For the host adapter's `responseMeta` option: the rate-limit, deprecation and link headers of the pets calls of a
   * request (merge with the host's own headers if it has a `responseMeta` too).
   */
  responseMeta(opts: { ctx?: unknown; errors: readonly unknown[] }): { headers?: Headers };
}

type Recorded = { meta: ResponseMeta; nextUrl?: string | undefined };

/**
 * The pets procedures for a host's own tRPC server, with its own context: each runs the core's one entry, so quotas,
 * bans, sunsets and errors are exactly REST's and our `/trpc`'s. API keys are the default caller (read from `ctx.req`);
 * a `principal` hook lets a host with logged-in users give each a plan and a quota of its own.
 * @example const pets = createPetsRouter(t.procedure, { store, principal: (ctx) => ({ principal: { id: ctx.user.id, plan: 'pro' } }) })
 */
export function createPetsRouter<TContext extends object, TMeta extends object, TContextOverrides extends object>(
  procedure: TRPCProcedureBuilder<TContext, TMeta, TContextOverrides, TRPCUnsetMarker, TRPCUnsetMarker, TRPCUnsetMarker, TRPCUnsetMarker, false>,
  options: PetsRouterOptions<TContext & TContextOverrides>,
): PetsRouter<TMeta> {
  type Ctx = TContext & TContextOverrides;
  const edge = createEdge(options.edge);
  const storeOf = typeof options.store === 'function' ? options.store : () => options.store as PetStore;
  const defaultPrincipal = (ctx: Ctx): Caller => {
    const req = (ctx as Partial<RequestBearingContext>).req;
    if (req === undefined) throw new Error('createPetsRouter: the context has no `req`; give a `principal` hook.');
    return edge.context(req instanceof Request ? fromFetchRequest(req) : fromNodeRequest(req));
  };
  const callerOf: PrincipalHook<Ctx> = (options.principal as PrincipalHook<Ctx> | undefined) ?? defaultPrincipal;
  const recorded = new WeakMap<object, Recorded>();
  const record = (ctx: object, meta: ResponseMeta, nextUrl?: string) => {
    const entry = recorded.get(ctx) ?? { meta: {} };
    Object.assign(entry.meta, meta);
    if (nextUrl !== undefined) entry.nextUrl = nextUrl;
    recorded.set(ctx, entry);
  };

  const build = (operationId: OperationId, path: string, result: (data: unknown, meta: ResponseMeta) => unknown) => {
    const op = operations[operationId];
    const linksNextPage = 'cursor' in ((op.input as { shape?: object }).shape ?? {}) && path === op.procedure;
    const withCall = procedure.use(async ({ ctx, next, getRawInput }) => {
      let input: unknown;
      const readInput = () =>
        getRawInput().then(
          (raw) => (input = raw),
          (error: unknown) => Promise.reject(toTrpcError(error).cause),
        );
      const caller = await callerOf(ctx as unknown as Ctx);
      const outcome = await storeOf(ctx as unknown as Ctx)
        .call(operationId, readInput, caller)
        .catch((error: unknown) => {
          const failure = error instanceof PetStoreError ? error : undefined;
          if (failure) record(ctx, failure.meta);
          throw toTrpcError(error);
        });
      const cursor = linksNextPage ? outcome.meta.nextCursor : undefined;
      const url = cursor === undefined ? undefined : options.url?.(ctx as unknown as Ctx);
      record(ctx, outcome.meta, url === undefined ? undefined : nextPageUrl(url, `pets.${path}`, input, cursor!));
      return next({ ctx: { petsResult: result(outcome.data, outcome.meta) } });
    });
    const typed = withCall.input(op.input as z.ZodType);
    const resolve = ({ ctx }: { ctx: { petsResult: unknown } }) => ctx.petsResult;
    return op.writes ? typed.mutation(resolve) : typed.query(resolve);
  };

  const procedures: Record<string, unknown> = {};
  for (const operationId of Object.keys(operations) as OperationId[]) {
    const { procedure: name, pageProcedure } = operations[operationId];
    procedures[name] = build(operationId, name, (data) => data);
    if (pageProcedure !== undefined) {
      procedures[pageProcedure] = build(operationId, pageProcedure, (data, meta) => ({ items: data, nextCursor: meta.nextCursor ?? null }));
    }
  }

  return {
    procedures: procedures as PetsProcedures<TMeta>,
    responseMeta({ ctx, errors }) {
      const entry = ctx !== null && typeof ctx === 'object' ? recorded.get(ctx) : undefined;
      const meta: ResponseMeta = { ...entry?.meta };
      for (const error of errors) Object.assign(meta, petStoreErrorIn(error)?.meta);
      if (entry === undefined && !errors.some((error) => petStoreErrorIn(error))) return {};
      const links = entry?.nextUrl === undefined ? {} : { nextUrl: entry.nextUrl };
      return { headers: new Headers(responseHeaders(meta, links)) };
    },
  };
}
