/**
 * The `If-Match` header of a mutation called with `{ context: { ifMatch } }` (`pets.update`, `pets.delete`), for the
 * `headers` option of a non-batching link (a batch carries one header for all its calls).
 * @example await trpc.pets.update.mutate({ petId: 7, status: 'sold' }, { context: { ifMatch: etag } })
 */
export function ifMatchHeader(op: { context: Record<string, unknown> }): Record<string, string> {
  const ifMatch = op.context.ifMatch;
  return typeof ifMatch === 'string' ? { 'if-match': ifMatch } : {};
}
