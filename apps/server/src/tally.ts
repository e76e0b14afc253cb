import type { Counter } from 'prom-client';

type Value = string | number | undefined;
type Level = Map<Value, Level | { count: number }>;

/**
 * A counter's counts, kept by label values in nested maps and handed to its prom-client `Counter` when metrics are
 * scraped (its `collect`): counting a request makes no label object and hashes no labels, which `counter.inc` does
 * on every call. Label values come in `labelNames` order; an undefined one is left out of the series' labels.
 * @example const tally = createTally(['plan', 'code']); new Counter({ …, collect() { tally.into(this) } }); tally.add('pro', 'rate_limited')
 */
export function createTally<L extends string>(labelNames: readonly L[]) {
  const root: Level = new Map();
  return {
    add(...values: Value[]) {
      let level = root;
      const last = labelNames.length - 1;
      for (let i = 0; i < last; i++) {
        let next = level.get(values[i]) as Level | undefined;
        if (!next) level.set(values[i], (next = new Map()));
        level = next;
      }
      const leaf = level.get(values[last]) as { count: number } | undefined;
      if (leaf) leaf.count += 1;
      else level.set(values[last], { count: 1 });
    },
    /** Sets `counter` to the counts (called from its `collect`). */
    into(counter: Counter<L>) {
      counter.reset();
      const walk = (level: Level, depth: number, labels: Partial<Record<L, string | number>>) => {
        for (const [value, next] of level) {
          const named = value === undefined ? labels : { ...labels, [labelNames[depth]!]: value };
          if (depth === labelNames.length - 1) counter.inc(named, (next as { count: number }).count);
          else walk(next as Level, depth + 1, named);
        }
      };
      walk(root, 0, {});
    },
  };
}
