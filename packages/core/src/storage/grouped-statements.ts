const MAX_GROUP = 100;

/** How the writes of one kind go to the database: together in one statement, or one alone. */
export interface GroupedStatement<Item, Result> {
  /** One statement for many items, answering each item's result in the order given. */
  many(items: readonly Item[]): Promise<Result[]>;
  /** The statement for one item: a group of one, and each item of a group whose statement failed. */
  one(item: Item): Promise<Result>;
  /**
   * The row an item changes. Items of one key never share a group: the later waits for the next, so they are made
   * one after the other, in the order they came, and a grouped statement never holds two changes of one row. A
   * group goes to `many` in ascending key order, so that grouped statements running at once (two instances on one
   * PostgreSQL) lock their rows in one order instead of deadlocking. Absent: every item is its own, in order.
   */
  keyOf?: ((item: Item) => number) | undefined;
}

interface Waiter<Item, Result> {
  item: Item;
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * Sends writes of one kind grouped: one statement is in flight at a time, and the items that arrive meanwhile go
 * together in the next (up to 100), so a busy service makes one round trip and one commit per group instead of one
 * per item. The first group of an idle queue is sent at the end of the event-loop turn, so the items of that turn go
 * together: an embedded database (PGlite) runs a statement synchronously, so nothing could arrive while it is "in
 * flight" and every group would hold one item. Every item is still committed before it is answered. If a group's
 * statement fails (it changed nothing), its items are sent again one by one, so each gets its own outcome.
 * For the store's own repositories only: writes inside a transaction must not be grouped.
 * @example const insert = groupedStatements({ many: insertMany, one: insertOne }); await insert(pet)
 */
export function groupedStatements<Item, Result>(statement: GroupedStatement<Item, Result>): (item: Item) => Promise<Result> {
  const { many, one, keyOf } = statement;
  let queue: Waiter<Item, Result>[] = [];
  let running = false;

  /** The next group: the first item of each key, in ascending key order; the rest stay queued, in order. */
  function nextGroup(): Waiter<Item, Result>[] {
    if (!keyOf) {
      const group = queue.slice(0, MAX_GROUP);
      queue = queue.slice(group.length);
      return group;
    }
    const group: { key: number; waiter: Waiter<Item, Result> }[] = [];
    const rest: Waiter<Item, Result>[] = [];
    const keys = new Set<number>();
    for (const waiter of queue) {
      const key = keyOf(waiter.item);
      if (group.length < MAX_GROUP && !keys.has(key)) {
        keys.add(key);
        group.push({ key, waiter });
      } else rest.push(waiter);
    }
    queue = rest;
    return group.sort((a, b) => a.key - b.key).map((entry) => entry.waiter);
  }

  async function drain() {
    running = true;
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (queue.length > 0) {
      const group = nextGroup();
      try {
        const results = group.length === 1 ? [await one(group[0]!.item)] : await many(group.map((w) => w.item));
        group.forEach((waiter, i) => waiter.resolve(results[i]!));
      } catch (error) {
        if (group.length === 1) group[0]!.reject(error);
        else for (const waiter of group) await one(waiter.item).then(waiter.resolve, waiter.reject);
      }
    }
    running = false;
  }

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!running) void drain();
    });
}
