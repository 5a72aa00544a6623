// When new bet-log entries are due for a commit: by count or by age, held back while the last commit's state tree
// would take more than its share of a core; and the tree's hashing time as the worker measures it.
import { describe, expect, it } from 'vitest';
import { commitDue, type CommitDueInput } from '../../anchor-worker/anchor-queue.ts';
import { stateTreeHoldsUntil } from '../../anchor-worker/anchor.ts';
import { inTurns } from '../../operator/in-turns.ts';

const base: CommitDueInput = { now: 100_000, logSize: 10, committed: 0, oldestAt: 99_000, maxEntries: 1_000, maxDelayMs: 2_000, heldBackUntil: 0 };

describe('a commit', () => {
  it('is due by count or by age, and never with nothing new', () => {
    expect(commitDue(base)).toBe(false);
    expect(commitDue({ ...base, oldestAt: 98_000 })).toBe(true);
    expect(commitDue({ ...base, logSize: 1_000 })).toBe(true);
    expect(commitDue({ ...base, logSize: 0, oldestAt: 0 })).toBe(false);
    expect(commitDue({ ...base, oldestAt: null })).toBe(false);
  });

  it('waits while the last state tree holds it back, by count or by age alike', () => {
    const due = { ...base, logSize: 5_000, oldestAt: 80_000, heldBackUntil: 108_000 };
    expect(commitDue({ ...due, now: 107_999 })).toBe(false);
    expect(commitDue({ ...due, now: 108_000 })).toBe(true);
  });

  it("is held back until the last state tree's hashing is its share of the time since it began", () => {
    // 2 s of hashing (100,000 wallets) at 10 %: the next commit 18 s after that tree was built, 20 s after it began.
    expect(stateTreeHoldsUntil({ at: 90_000, busyMs: 2_000 }, 10)).toBe(108_000);
    expect(stateTreeHoldsUntil({ at: 90_000, busyMs: 2_000 }, 50)).toBe(92_000);
    // At 100 % only the count and the age decide, as before; a cheap tree (a few hundred wallets) holds nothing back.
    expect(stateTreeHoldsUntil({ at: 90_000, busyMs: 2_000 }, 100)).toBe(90_000);
    expect(stateTreeHoldsUntil({ at: 90_000, busyMs: 9 }, 10)).toBe(0);
    expect(stateTreeHoldsUntil(null, 10)).toBe(0);
  });
});

describe('a sliced computation', () => {
  it('counts the time spent in its slices, not the turns between them', async () => {
    const spin = (ms: number) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
    };
    function* work(): Generator<void, number> {
      for (let i = 0; i < 5; i++) {
        spin(10);
        // Other work of the process, in the turn between slices.
        setImmediate(() => spin(20));
        yield;
      }
      return 7;
    }
    const busy = { ms: 0 };
    const t0 = performance.now();
    expect(await inTurns(work(), busy)).toBe(7);
    expect(busy.ms).toBeGreaterThanOrEqual(50);
    expect(busy.ms).toBeLessThan(100);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(150);
  });
});
