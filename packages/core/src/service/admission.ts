import type { ApiKeyRecord } from '../auth/api-key-store.js';
import { invalidApiKey, type Authenticator } from '../auth/authenticator.js';
import { plans } from '../auth/plans.js';
import { quotaSubject, type Principal, type QuotaSubject } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import { noneMatchFails } from '../domain/etag.js';
import { PetStoreError } from '../errors/pet-store-error.js';
import type { OperationDefinition, OperationId } from '../operations/operations.js';
import { banRefusal } from '../quota/ban.js';
import type { CallContext } from './call-context.js';
import type { Quota } from './quota.js';
import type { ResponseMeta } from './response-meta.js';

/**
 * A request's way through admission, filled in as it goes: who it was admitted as and how it was counted. The call
 * reads it to run the operation as its caller; usage and metrics observe it once the request has its answer.
 */
export interface Admission {
  /** The valid key the request was verified as. */
  key: ApiKeyRecord | undefined;
  /** The principal a host named as the caller. */
  principal: Principal | undefined;
  /** What its quota counts: the first key of a rotation (so a rolled key shares one quota and one ban), or the principal. */
  subject: QuotaSubject | undefined;
  /** Whether it was counted (against its address, its windows or an operation's own limit), or refused with 429. */
  counted: boolean;
  /** The 429 it was refused with. */
  refusal: PetStoreError | undefined;
  /** Whether it passed the quota: the operation may run (unless its sunset has passed). */
  admitted: boolean;
  /** A revalidation (`If-None-Match`) whose count waits for its answer's ETag: see {@link AdmissionRoom.leave}. */
  pending: boolean;
}

/** A request counted against a quota: by its key when valid, else by its address; `refusal` when over a limit. */
export interface CountedRequest {
  key: ApiKeyRecord | undefined;
  /** The principal a host named, when the request was counted against one. */
  principal?: Principal;
  /** The operation called, when the request names one. */
  operationId?: OperationId;
  refusal?: PetStoreError;
}

/**
 * Where every request is admitted, in the order of DECISIONS "Work follows trust": the address rule, the key, the
 * quota, the operation's sunset; then the caller reads the body and runs the operation, and `leave`s. Refusals are
 * thrown as PetStoreErrors; what was learnt on the way is in the request's {@link Admission} and its meta.
 */
export interface AdmissionRoom {
  /** A fresh admission, for one request. */
  start(): Admission;
  /** Admits a call of `op`: its caller known, counted, and the operation still served. */
  enter(op: OperationDefinition, context: CallContext, meta: ResponseMeta, admission: Admission): Promise<void>;
  /**
   * Ends a call that answered: a revalidation is counted unless its answer's ETag matched (`meta.notModified`, counted
   * against no window), and the key becomes known at the client's address. Answers a promise only when it counts.
   */
  leave(context: CallContext, meta: ResponseMeta, admission: Admission): Promise<void> | undefined;
  /** Admits a batch as one request: the address rule and the key, once; refused without a valid key. Counts no call. */
  enterBatch(context: CallContext, meta: ResponseMeta, admission: Admission): Promise<void>;
  /**
   * Counts `requests` that name no operation of the store, against the key when valid, else the address; or, with
   * `refusedWith`, the calls of a batch refused along with its 429: the caller known, nothing counted again.
   */
  meter(context: CallContext, meta: ResponseMeta, admission: Admission, requests: number, refusedWith?: PetStoreError): Promise<void>;
}

// The address a request without one is counted under.
const addressOf = (context: CallContext) => context.clientAddress ?? 'unknown';

const isRateLimit = (error: unknown): error is PetStoreError => error instanceof PetStoreError && error.status === 429;

/**
 * The admission room of a store, on its quota and its keys.
 * @example const room = createAdmission({ quota, authenticator, clock }); await room.enter(op, context, meta, room.start())
 */
export function createAdmission(options: { quota: Quota; authenticator: Authenticator; clock: Clock }): AdmissionRoom {
  const { quota, authenticator, clock } = options;

  async function enter(op: OperationDefinition, context: CallContext, meta: ResponseMeta, admission: Admission) {
    // 1. The caller. A host's principal is no guess: no address rule, no key to verify.
    if (context.principal) asPrincipal(context.principal, meta, admission);
    // 2. The address rule, then the key: a request without a valid key is counted against its address and refused.
    else if (!(await verify(context, meta, admission, 1))) throw await withoutKey(context);
    // 3. The quota: an operation's own limit, or a revalidation that waits for its answer, or the plan's windows.
    if (op.ownLimitPerMinute !== undefined) await countOwn(op, meta, admission);
    else if (context.ifNoneMatch !== undefined && op.conditional === true && !op.writes && !context.principal) await standBy(meta, admission);
    else await count(meta, admission, 1);
    admission.admitted = true;
    // 4. The operation is still served: from its sunset on, 410.
    if (op.deprecation) {
      meta.deprecation = op.deprecation;
      if (clock.now() >= op.deprecation.sunset.getTime()) {
        const { sunset, successor } = op.deprecation;
        throw new PetStoreError('gone', `This operation was removed on ${sunset.toUTCString()}; use GET ${successor}.`);
      }
    }
  }

  function leave(context: CallContext, meta: ResponseMeta, admission: Admission) {
    if (admission.pending) {
      admission.pending = false;
      // A match is answered 304, counted against no window (DECISIONS "The store changes"); anything else counts.
      if (meta.etag !== undefined && noneMatchFails(context.ifNoneMatch!, meta.etag)) meta.notModified = true;
      else return count(meta, admission, 1).then(() => succeeded(context, admission));
    }
    succeeded(context, admission);
    return undefined;
  }

  /** A key's call answered without error: the key becomes known at the client's address. */
  function succeeded(context: CallContext, admission: Admission) {
    if (admission.key) quota.tokenSucceeded(context.apiKey!, addressOf(context));
  }

  async function enterBatch(context: CallContext, meta: ResponseMeta, admission: Admission) {
    // A principal's calls are each counted on their own; nothing to verify.
    if (!context.principal && !(await verify(context, meta, admission, 1))) throw await withoutKey(context);
  }

  async function meter(context: CallContext, meta: ResponseMeta, admission: Admission, requests: number, refusedWith?: PetStoreError) {
    if (context.principal) asPrincipal(context.principal, meta, admission);
    else if (!(await verify(context, meta, admission, requests))) return;
    // Refused along with a batch's 429: the key's, but its windows count none of them (one batch is one request
    // toward a ban), and the quota's store is not asked again.
    if (refusedWith) refuse(admission, refusedWith);
    else await count(meta, admission, requests);
  }

  function asPrincipal(principal: Principal, meta: ResponseMeta, admission: Admission) {
    admission.principal = principal;
    admission.subject = quotaSubject(principal, plans);
    meta.principalId = principal.id;
  }

  /**
   * The address rule, then the key. While the address is over its limit, a request is refused from the quota's memory
   * of the address and of the tokens known there, with no key look-up and no further count of the address, unless its
   * token is one known there: so a right guess and a wrong one take the same path and time, and strangers sharing an
   * address cannot lock its clients out. Answers the valid key, counted nothing yet; or undefined once the request
   * was counted against its address, having no valid key.
   */
  async function verify(context: CallContext, meta: ResponseMeta, admission: Admission, requests: number) {
    const token = context.apiKey;
    const address = addressOf(context);
    try {
      await quota.checkAddress(address);
    } catch (error) {
      // The store failing (503) is no refusal of the address: answered as it is, without waiting on the store again.
      if (!isRateLimit(error)) throw error;
      if (token === undefined || !(await quota.knowsToken(token, address))) throw refuse(admission, error);
    }
    const key = token === undefined ? undefined : await authenticator.verify(token);
    if (!key) {
      try {
        meta.rateLimit = await quota.consumeAddress(address, requests);
      } catch (error) {
        throw refuse(admission, error);
      }
      admission.counted = true;
      return undefined;
    }
    // Only now is the request the key's: a refusal by the address rule is not charged to it, nor in its usage.
    meta.keyId = key.id;
    admission.key = key;
    admission.subject = { id: key.quotaKeyId ?? key.id, limits: key.limits };
    return key;
  }

  /** The 401 of a request that has no valid key: none sent, or one that names no usable key. */
  async function withoutKey(context: CallContext): Promise<PetStoreError> {
    return context.apiKey === undefined ? new PetStoreError('missing_api_key') : invalidApiKey(await authenticator.explain(context.apiKey));
  }

  /** Counts against the plan's windows. */
  async function count(meta: ResponseMeta, admission: Admission, requests: number) {
    try {
      meta.rateLimit = await quota.consumeKey(admission.subject!, requests);
    } catch (error) {
      throw refuse(admission, error);
    }
    admission.counted = true;
  }

  /**
   * An operation with a limit of its own (`getUsage`): the caller's standing read (a banned caller gets its usual
   * 429), then the call counted against the operation's limit, never the plan's windows, which the answer shows.
   */
  async function countOwn(op: OperationDefinition, meta: ResponseMeta, admission: Admission) {
    const standing = await quota.standing(admission.subject!);
    if (standing.bannedUntil !== undefined) throw refuse(admission, banRefusal(standing.windows, standing.bannedUntil, clock.now()));
    try {
      await quota.consumeOwn(admission.subject!, op.operationId, op.ownLimitPerMinute!);
    } catch (error) {
      throw refuse(admission, error);
    }
    admission.counted = true;
    meta.rateLimit = standing.windows;
  }

  /**
   * A conditional read (`If-None-Match`), counted only once its answer is known: its standing read now, so a banned key
   * gets its 429 and a key with a spent window is counted as usual, and so refused.
   */
  async function standBy(meta: ResponseMeta, admission: Admission) {
    const standing = await quota.standing(admission.subject!);
    if (standing.bannedUntil !== undefined) throw refuse(admission, banRefusal(standing.windows, standing.bannedUntil, clock.now()));
    if (standing.windows.some((window) => window.remaining <= 0)) return count(meta, admission, 1);
    meta.rateLimit = standing.windows;
    admission.pending = true;
  }

  /** Notes a 429 in the admission (a refused request is a counted one); answers the error, to throw. */
  function refuse(admission: Admission, error: unknown): unknown {
    if (isRateLimit(error)) {
      admission.refusal = error;
      admission.counted = true;
    }
    return error;
  }

  return Object.freeze({
    start: (): Admission => ({
      key: undefined,
      principal: undefined,
      subject: undefined,
      counted: false,
      refusal: undefined,
      admitted: false,
      pending: false,
    }),
    enter,
    leave,
    enterBatch,
    meter,
  });
}
