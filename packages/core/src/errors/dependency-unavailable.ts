/**
 * The cause of a 503 `unavailable` when a service other than the database cannot be reached, naming it, so that
 * logs and probes can tell a Redis outage from a database one. Without it, `unavailable` means the database.
 * @example new PetStoreError('unavailable', undefined, { cause: new DependencyUnavailableError('redis', error) })
 */
export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: string,
    cause: unknown,
  ) {
    super(`${dependency} cannot be reached`, { cause });
    this.name = 'DependencyUnavailableError';
  }
}

/**
 * Which dependency a failure says cannot be reached: the one a {@link DependencyUnavailableError} in its causes
 * names, else `database`.
 * @example unavailableDependency(new PetStoreError('unavailable')) // 'database'
 */
export function unavailableDependency(error: unknown): string {
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof DependencyUnavailableError) return cause.dependency;
  }
  return 'database';
}
