import type { ApiKeyRecord } from '../auth/api-key-store.js';
import type { OperationId } from '../operations/operations.js';
import { operations } from '../operations/operations.js';
import { countedInto, type PetStoreMetrics } from '../telemetry/metrics.js';
import type { DeprecatedUsageLedger } from '../usage/deprecated-usage.js';
import type { UsageLedger, UsageOutcome } from '../usage/usage-ledger.js';
import type { Admission, CountedRequest } from './admission.js';

/** How a request ended, as the usage ledger counts it. */
export function outcomeOf(status: number, code: string): UsageOutcome {
  if (code === 'api_key_banned') return 'banned';
  if (status === 429) return 'rateLimited';
  return status >= 500 ? 'serverErrors' : 'clientErrors';
}

/** What watches requests end: the usage ledgers, the metrics, the host's `onRequestCounted`. */
export interface CallObserver {
  /**
   * A request (or `requests` counted together) has its answer: told to `onRequestCounted` when it was counted, and kept
   * in the usage ledger under its caller (`unmatched` when it named no operation). A server error that came before its
   * key was verified (the database away) is kept under the key its token named when last looked up (`lastKnown`),
   * since that client got it.
   */
  ended(admission: Admission, token: string | undefined, operationId: OperationId | 'unmatched', outcome: UsageOutcome, requests?: number): void;
  /** Only tells `onRequestCounted` (a batch admitted or refused as one request, whose calls are observed on their own). */
  counted(admission: Admission, operationId: OperationId | undefined, requests?: number): void;
}

/**
 * The observer of a store's requests.
 * @example const observer = createCallObserver({ usage, deprecatedUsage, metrics, lastKnown: authenticator.lastKnown })
 */
export function createCallObserver(options: {
  usage: UsageLedger;
  deprecatedUsage: DeprecatedUsageLedger;
  metrics?: PetStoreMetrics | undefined;
  onRequestCounted?: ((request: CountedRequest) => void) | undefined;
  lastKnown: (token: string) => ApiKeyRecord | undefined;
}): CallObserver {
  const { usage, deprecatedUsage, metrics, lastKnown } = options;
  const intoMetrics = metrics ? countedInto(metrics) : undefined;
  const host = options.onRequestCounted;
  const onCounted =
    intoMetrics && host ? (request: CountedRequest) => (intoMetrics(request), host(request)) : (intoMetrics ?? host);
  const callCounted = metrics?.callCounted?.bind(metrics);

  function counted(admission: Admission, operationId: OperationId | undefined, requests = 1) {
    if (!onCounted || !admission.counted) return;
    const { key, principal, refusal } = admission;
    const request: CountedRequest = { key };
    if (principal) request.principal = principal;
    if (operationId !== undefined) request.operationId = operationId;
    if (refusal) request.refusal = refusal;
    for (let i = 0; i < requests; i++) onCounted(request);
  }

  function ended(admission: Admission, token: string | undefined, operationId: OperationId | 'unmatched', outcome: UsageOutcome, requests = 1) {
    counted(admission, operationId === 'unmatched' ? undefined : operationId, requests);
    const { principal } = admission;
    let { key } = admission;
    if (key && admission.admitted && operationId !== 'unmatched' && operations[operationId].deprecation) deprecatedUsage.record(key.id, operationId);
    if (!key && !principal && outcome === 'serverErrors' && token !== undefined) key = lastKnown(token);
    if (principal) usage.record({ principalId: principal.id }, principal.plan, operationId, outcome, requests);
    else if (key) usage.record({ keyId: key.id }, key.plan, operationId, outcome, requests);
    else return;
    if (callCounted) {
      const plan = (principal ?? key)!.plan;
      for (let i = 0; i < requests; i++) callCounted({ plan, operationId, outcome });
    }
  }

  return Object.freeze({ ended, counted });
}
