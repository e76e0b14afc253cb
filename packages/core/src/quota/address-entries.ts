/**
 * The address counters a memory store holds, at most `max` of them: past that, the one counted first is forgotten
 * (`forget`), so that a stream of new addresses costs a bounded map, never one entry per address for five minutes.
 * Counters are named by their minute, so the oldest are those of minutes already past; a counter of the current
 * minute goes only when more than `max` addresses counted within five minutes, and then that address starts its
 * minute afresh.
 * @example const counted = addressEntries(10_000, (name) => counters.forget(name)); counted(`a:203.0.113.5:29`)
 */
export function addressEntries(max: number, forget: (name: string) => Promise<unknown>): (name: string) => void {
  const names = new Set<string>();
  return (name) => {
    if (names.has(name)) return;
    names.add(name);
    if (names.size <= max) return;
    const oldest = names.values().next().value as string;
    names.delete(oldest);
    // The memory stores' deletion does not fail; nothing awaits it.
    forget(oldest).catch(() => {});
  };
}
