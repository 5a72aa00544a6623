// A commit's liability tree built in slices (the worker's and the API's way) is the tree built at once, and it gives
// the caller's event loop a turn between slices.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { buildLiabilityTree, liabilityTreeSteps } from '../../protocol/liabilities.ts';
import { buildStateTree, stateTreeSteps } from '../../protocol/state-tree.ts';
import { inTurns } from '../../operator/in-turns.ts';

const secret = randomBytes(32);
const liabilities = new Map(Array.from({ length: 300 }, (_, i) => [base58.encode(randomBytes(32)), BigInt(i * 7)] as const));

function run<T>(steps: Generator<void, T>): { value: T; pauses: number } {
  let pauses = 0;
  for (;;) {
    const step = steps.next();
    if (step.done) return { value: step.value, pauses };
    pauses++;
  }
}

describe('a liability tree in slices', () => {
  it('is the tree built at once, and pauses about once a slice of hashes', () => {
    const whole = buildLiabilityTree(secret, 9, liabilities);
    const { value, pauses } = run(liabilityTreeSteps(secret, 9, liabilities, 64));
    expect(value.tree.root).toEqual(whole.tree.root);
    expect(value.tree.total).toBe(whole.tree.total);
    expect(value.ids).toEqual(whole.ids);
    const [wallet] = liabilities.keys();
    expect(value.tree.proof(value.ids.get(wallet!)!)).toEqual(whole.tree.proof(whole.ids.get(wallet!)!));
    // Two hashes a wallet's id, one a leaf, one a node: 300 · 2 + 300 + 299 = 1,199 hashes, 18 slices of 64.
    expect(pauses).toBe(18);
    expect(run(liabilityTreeSteps(secret, 9, liabilities)).pauses).toBe(0);
  });

  it('checks its slice and its leaves as the whole build does', () => {
    expect(() => stateTreeSteps([], 0).next()).toThrow(RangeError);
    const leaves = [...buildLiabilityTree(secret, 1, liabilities).tree.leaves];
    expect(run(stateTreeSteps(leaves, 10)).value.root).toEqual(buildStateTree(leaves).root);
    expect(() => run(stateTreeSteps([leaves[0]!, leaves[0]!], 10))).toThrow(/duplicate leaf id/);
  });

  it('lets the event loop turn between slices when run in turns', async () => {
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    const tree = await inTurns(
      (function* () {
        const value = yield* liabilityTreeSteps(secret, 2, liabilities, 256);
        expect(turned).toBe(true);
        return value;
      })(),
    );
    expect(tree.tree.root).toEqual(buildLiabilityTree(secret, 2, liabilities).tree.root);
  });
});
