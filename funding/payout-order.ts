// The order in which the keeper sends withdrawals: round-robin over wallets, so that a wallet's backlog takes one turn
// per round however long it is, and every other wallet's next withdrawal goes out within the first round.

/**
 * Interleaves `items` by wallet: each wallet's first item, in the order the wallets first appear, then each one's
 * second, and so on. A wallet's own items keep their order.
 * @example roundRobin([{ wallet: 'a', id: 1 }, { wallet: 'a', id: 2 }, { wallet: 'b', id: 3 }]).map((x) => x.id) // [1, 3, 2]
 */
export function roundRobin<T extends { wallet: string }>(items: readonly T[]): T[] {
  const queues = new Map<string, T[]>();
  for (const item of items) {
    const queue = queues.get(item.wallet);
    if (queue) queue.push(item);
    else queues.set(item.wallet, [item]);
  }
  const ordered: T[] = [];
  for (let round = 0; ordered.length < items.length; round++) {
    for (const queue of queues.values()) {
      const item = queue[round];
      if (item !== undefined) ordered.push(item);
    }
  }
  return ordered;
}
