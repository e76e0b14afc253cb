/**
 * `target` with each of its methods that answers a promise timed from its call to its answer (or failure): `observe`
 * gets the seconds. The object itself is untouched; methods answering anything else, and those named in `except`,
 * are passed through.
 * @example const pets = timedCalls(repository, (seconds) => metrics.databaseWait?.({ stage: 'call', seconds }))
 */
export function timedCalls<T extends object>(target: T, observe: (seconds: number) => void, except: readonly string[] = []): T {
  const timed: Record<string, unknown> = {};
  for (const name of new Set([...Object.keys(target), ...Object.getOwnPropertyNames(Object.getPrototypeOf(target))])) {
    const member = (target as Record<string, unknown>)[name];
    if (typeof member !== 'function' || name === 'constructor') continue;
    timed[name] = except.includes(name)
      ? member.bind(target)
      : (...args: unknown[]) => {
          const started = performance.now();
          const answer = member.apply(target, args) as unknown;
          if (answer instanceof Promise) {
            const seen = () => observe((performance.now() - started) / 1000);
            answer.then(seen, seen);
          }
          return answer;
        };
  }
  // Defined, not assigned: a frozen target's methods are read-only on the prototype, and an assignment would throw.
  const members = Object.fromEntries(Object.entries(timed).map(([name, value]) => [name, { value, enumerable: true }]));
  return Object.create(target, members) as T;
}
