import type { IncomingMessage } from 'node:http';
import { operations, Pets, PetStoreError, type OperationId, type PetStore, type Principal, type ResponseMeta } from '@petstore/core';
import { createBatch, createEdge, fromFetchRequest, fromNodeRequest, responseHeaders, type Batch, type EdgeOptions } from '@petstore/http';
import type { TRPCMutationProcedure, TRPCProcedureBuilder, TRPCQueryProcedure, TRPCUnsetMarker } from '@trpc/server';
import { z } from 'zod';
import { petStoreErrorIn, toTrpcError } from './errors/error-mapping.js';
import { nextPageUrl } from './procedures.js';

type Ops = typeof operations;

/** Who is calling, as the host's context says: an API key (verified by the store), or a principal the host vouches for. */
export type Caller =
  | { apiKey?: string | undefined; clientAddress?: string | undefined; idempotencyKey?: string | undefined; ifMatch?: string | undefined }
  | { principal: Principal; clientAddress?: string | undefined; ifMatch?: string | undefined };

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
  /** The batch a request's calls belong to when an edge in front already admitted it (the service's own `/trpc`). */
  batch?: ((ctx: TContext) => Batch | undefined) | undefined;
} & (TContext extends RequestBearingContext ? { principal?: PrincipalHook<TContext> } : { principal: PrincipalHook<TContext> });

/**
 * A host adapter's `responseMeta`: the rate-limit, deprecation and link headers of the pets calls of a request (merge
 * them with the host's own headers if it has a `responseMeta` too). It finds each call through `info.calls`, so the
 * headers stay whatever middleware did to the context.
 */
export type PetsResponseMeta = (opts: {
  info?: { readonly calls: readonly { readonly getRawInput: unknown }[] } | undefined;
  errors: readonly unknown[];
}) => { headers?: Headers };

// Where a record made by createPetsRouter keeps its responseMeta: a symbol, which tRPC's routers and the record's type
// leave out (a router record's string keys are its procedures), and which a spread of the record keeps.
const responseMetaOf = Symbol('petstore.pets.responseMeta');

/** The pets procedures, as {@link createPetsRouter} makes them: a router record to mount under any name. */
export type PetsRouter<TMeta = object> = PetsProcedures<TMeta>;

/**
 * The `responseMeta` for the host's adapter that serves these procedures: it puts their headers on its responses.
 * @example createHTTPServer({ router, createContext, responseMeta: petsResponseMeta(pets), maxBatchSize })
 */
export function petsResponseMeta(pets: PetsRouter<any>): PetsResponseMeta {
  const responseMeta = (pets as { [responseMetaOf]?: PetsResponseMeta })[responseMetaOf];
  if (!responseMeta) throw new TypeError('petsResponseMeta takes the procedures createPetsRouter made (or a spread of them).');
  return responseMeta;
}

type Recorded = { meta: ResponseMeta; nextUrl?: string | undefined };

/** The pets calls of one request in flight: one batch (see `createBatch`), and how many of its calls still run. */
interface InFlight {
  batch: Batch;
  calls: number;
}

/** What a procedure knows of its request: the adapter's request object in the context, or else the context itself. */
const requestOf = (ctx: object): object => {
  const req = (ctx as { req?: unknown }).req;
  return req !== null && typeof req === 'object' ? req : ctx;
};

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
  // What each call answered, by its `getRawInput`: the one thing of a call that its procedure and the adapter's
  // `responseMeta` (through `info.calls`) both see, whatever context a middleware made for the procedure.
  const recorded = new WeakMap<object, Recorded>();
  // The calls of each request in flight: a batch is admitted once, and its calls keep their order (DECISIONS).
  const inFlight = new WeakMap<object, InFlight>();

  /**
   * Runs one call as a call of its request's batch: the calls of a request in flight together are one batch,
   * admitted once and run in order (`createBatch`); a request's state goes with its last call.
   */
  async function run(operationId: OperationId, ctx: Ctx, batchIndex: number, readInput: () => Promise<unknown>) {
    const caller = await callerOf(ctx);
    const store = storeOf(ctx);
    const request = requestOf(ctx);
    let entry = inFlight.get(request);
    if (!entry) inFlight.set(request, (entry = { batch: options.batch?.(ctx) ?? createBatch(store, caller), calls: 0 }));
    entry.calls++;
    try {
      return await entry.batch.call(batchIndex, operationId, readInput, (read) => store.call(operationId, read, caller));
    } finally {
      if (--entry.calls === 0) inFlight.delete(request);
    }
  }

  const build = (operationId: OperationId, path: string, result: (data: unknown, meta: ResponseMeta) => unknown) => {
    const op = operations[operationId];
    const linksNextPage = 'cursor' in ((op.input as { shape?: object }).shape ?? {}) && path === op.procedure;
    const withCall = procedure.use(async ({ ctx, next, getRawInput, batchIndex }) => {
      let input: unknown;
      const readInput = () =>
        getRawInput().then(
          (raw) => (input = raw),
          (error: unknown) => Promise.reject(toTrpcError(error).cause),
        );
      const outcome = await run(operationId, ctx as unknown as Ctx, batchIndex, readInput).catch((error: unknown) => {
        if (error instanceof PetStoreError) recorded.set(getRawInput, { meta: error.meta });
        throw toTrpcError(error);
      });
      const cursor = linksNextPage ? outcome.meta.nextCursor : undefined;
      const url = cursor === undefined ? undefined : options.url?.(ctx as unknown as Ctx);
      recorded.set(getRawInput, {
        meta: outcome.meta,
        nextUrl: url === undefined ? undefined : nextPageUrl(url, `pets.${path}`, input, cursor!),
      });
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

  const responseMeta: PetsResponseMeta = ({ info, errors }) => {
    const meta: ResponseMeta = {};
    let nextUrl: string | undefined;
    let answered = false;
    const calls = info?.calls ?? [];
    for (const call of calls) {
      const entry = typeof call.getRawInput === 'function' ? recorded.get(call.getRawInput) : undefined;
      if (entry === undefined) continue;
      answered = true;
      Object.assign(meta, entry.meta);
      nextUrl = entry.nextUrl ?? nextUrl;
    }
    for (const error of errors) {
      const failure = petStoreErrorIn(error);
      if (!failure) continue;
      answered = true;
      Object.assign(meta, failure.meta);
    }
    if (!answered) return {};
    // An ETag names one answer: a batch's answers have none in common.
    if (calls.length > 1) delete meta.etag;
    return { headers: new Headers(responseHeaders(meta, nextUrl === undefined ? {} : { nextUrl })) };
  };
  return Object.assign(procedures as PetsRouter<TMeta>, { [responseMetaOf]: responseMeta });
}
