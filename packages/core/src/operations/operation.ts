import type { z } from 'zod';
import type { Usage } from '../domain/usage-schemas.js';
import type { ResponseMeta } from '../service/response-meta.js';
import type { OrderRepository } from '../storage/order-repository.js';
import type { PetRepository } from '../storage/pet-repository.js';
import type { WebhookRepository } from '../storage/webhook-repository.js';
import type { TargetRule } from '../webhooks/targets.js';

/** Where an operation stands: absent for stable, or an `x-stability` marker. */
export type Stability = 'experimental' | 'beta';

/** The deprecation of an operation: when it was announced, when it goes, what replaces it. */
export interface Deprecation {
  /** When the deprecation was announced (the `Deprecation` header, RFC 9745). */
  readonly since: Date;
  /** From this instant on the operation answers 410 `gone` (the `Sunset` header, RFC 8594). */
  readonly sunset: Date;
  /** Path of the replacement, relative to the base address. */
  readonly successor: string;
}

/** What an operation's `run` works with: the animals, the answer's meta, and a read cache that writes clear. */
export interface OperationEnv {
  readonly pets: PetRepository;
  /** The orders, each changed with its pet in one statement. */
  readonly orders: OrderRepository;
  /** The webhook endpoints and their deliveries. */
  readonly webhooks: WebhookRepository;
  /** Where webhooks may be sent: checked at registration (and again at every delivery). */
  readonly webhookTargets: TargetRule;
  /** Whose the caller's orders are: `k:ID`, the first key of its rotation, or `p:ID`, a host's principal. */
  readonly owner: string;
  /** The store's clock, now. */
  now(): Date;
  /** What the answer carries besides its data (a next-page cursor, say). */
  readonly meta: ResponseMeta;
  /**
   * A read served from memory for a short time (`listCacheMs` of the store); any write through the store clears it.
   * @example await env.cached(`page:${afterId}`, () => env.pets.list(query))
   */
  cached<T>(key: string, load: () => Promise<T>): Promise<T>;
  /** Where the caller stands: its plan, its windows as they are (nothing counted), its ban and today's usage. */
  standing(): Promise<Usage>;
  /** The `If-Match` of a write, as sent (see `conditional`); `conditionalChange` reads it. */
  readonly ifMatch?: string | undefined;
}

/**
 * One operation of the interface, defined once in core: its HTTP method and path, its schemas, its lifecycle and the
 * store method that runs it. REST routes, tRPC procedures, the OpenAPI document and every host derive from it.
 * REST reads the input from the path's `{placeholders}`, then from the query string (GET, DELETE) or the JSON body.
 * @example operations.getPet.path // '/pets/{petId}'
 */
export interface OperationDefinition<Input extends z.ZodType = z.ZodType, Output extends z.ZodType = z.ZodType> {
  readonly operationId: string;
  /** The procedure name under the `pets` router of tRPC. */
  readonly procedure: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path relative to the base address, with `{param}` placeholders named after input fields. */
  readonly path: string;
  readonly summary: string;
  readonly description: string;
  readonly tags: readonly string[];
  /** The input, validated by the core whoever calls: typed callers send it as is, REST reads it from HTTP. */
  readonly input: Input;
  readonly output: Output;
  /** 204 answers no body (its output is `null` on tRPC and in-process); 202 accepts work done later. */
  readonly successStatus: 200 | 201 | 202 | 204;
  /**
   * Whether the operation changes data: it takes an `Idempotency-Key`, clears cached reads, and is a tRPC mutation
   * (else a query).
   */
  readonly writes: boolean;
  /**
   * Whether its answers carry an `ETag` (`meta.etag`) and it takes a condition on it: a read, `If-None-Match` (304,
   * REST only); a write, `If-Match` (412 `precondition_failed`).
   */
  readonly conditional?: boolean;
  readonly deprecation?: Deprecation;
  readonly stability?: Stability;
  /**
   * The name of a second tRPC procedure for an operation that pages (sets `meta.nextCursor`): the same call,
   * answering `{ items, nextCursor }` with the next page's cursor in the body (null on the last page), since tRPC
   * clients read no `Link` header. REST has no such route.
   */
  readonly pageProcedure?: string;
  /**
   * Calls per minute per key (or principal) allowed by a limit of the operation's own, instead of counting against
   * the plan's windows, which it leaves untouched and answers in its rate-limit headers (`getUsage`).
   */
  readonly ownLimitPerMinute?: number;
  /** Runs the operation on validated input, once the request is admitted. */
  run(input: z.output<Input>, env: OperationEnv): Promise<z.output<Output>>;
}

/**
 * Declares an operation, keeping its input and output types, its procedure names and whether it writes.
 * @example export const getPet = defineOperation({ operationId: 'getPet', …, run: (input, { pets }) => … })
 */
export const defineOperation = <
  I extends z.ZodType,
  O extends z.ZodType,
  const P extends string,
  const W extends boolean,
  const G extends string = never,
>(
  op: OperationDefinition<I, O> & { readonly procedure: P; readonly writes: W; readonly pageProcedure?: G },
) => Object.freeze(op);
