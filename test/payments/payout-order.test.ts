// The keeper's send order: round-robin over wallets, each wallet's own order kept.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { roundRobin } from '../../funding/payout-order.ts';

describe('roundRobin', () => {
  it('gives every wallet one turn per round, in the order the wallets first appear', () => {
    const items = ['a1', 'a2', 'a3', 'b1', 'a4', 'c1', 'b2'].map((id) => ({ wallet: id[0]!, id }));
    expect(roundRobin(items).map((x) => x.id)).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3', 'a4']);
    expect(roundRobin([])).toEqual([]);
  });

  it('is a permutation that keeps each wallet’s order, and puts every wallet’s first item within the first round', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ wallet: fc.constantFrom('a', 'b', 'c', 'd'), id: fc.nat() })), (items) => {
        const ordered = roundRobin(items);
        expect([...ordered].sort((x, y) => items.indexOf(x) - items.indexOf(y))).toEqual(items);
        const wallets = [...new Set(items.map((x) => x.wallet))];
        for (const w of wallets) expect(ordered.filter((x) => x.wallet === w)).toEqual(items.filter((x) => x.wallet === w));
        expect(new Set(ordered.slice(0, wallets.length).map((x) => x.wallet)).size).toBe(wallets.length);
      }),
    );
  });
});
