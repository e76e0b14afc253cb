import { createHash } from 'node:crypto';

const byKey = ([a]: [string, unknown], [b]: [string, unknown]) => (a < b ? -1 : a > b ? 1 : 0);

function sortKeys(_key: string, value: unknown) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(byKey));
}

/**
 * What makes two requests "the same": hex SHA-256 of the operation and its validated input as JSON, keys sorted.
 * @example requestHash('createPet', { name: 'Rex', categoryId: 1, status: 'available' })
 */
export function requestHash(operationId: string, input: unknown): string {
  return createHash('sha256')
    .update(`${operationId}\n${JSON.stringify(input, sortKeys)}`)
    .digest('hex');
}
