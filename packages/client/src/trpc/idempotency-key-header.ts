/**
 * The `Idempotency-Key` header of a mutation that `petStoreRetryLink` gave a key (`op.context.idempotencyKey`), for
 * the `headers` option of a non-batching link (a batch carries one header for all its calls).
 * @example httpLink({ url, headers: ({ op }) => ({ authorization, ...idempotencyKeyHeader(op) }) })
 */
export function idempotencyKeyHeader(op: { context: Record<string, unknown> }): Record<string, string> {
  const key = op.context.idempotencyKey;
  return typeof key === 'string' ? { 'idempotency-key': key } : {};
}
