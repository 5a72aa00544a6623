// Pooled buffers: a buffer taken is never handed out again until it is given back, the smallest that fits is reused,
// and the pool keeps at most its count, the largest buffers it was given, none past its size limit.
import { describe, expect, it } from 'vitest';
import { BufferPool } from '../../store/buffer-pool.ts';

describe('BufferPool', () => {
  it('hands out new buffers of at least the size, rounded up to a power of two', () => {
    const pool = new BufferPool(2);
    expect(pool.take(1).length).toBe(16 * 1024);
    expect(pool.take(100_000).length).toBe(131_072);
    expect(pool.take(131_072).length).toBe(131_072);
  });

  it('reuses the smallest buffer given back that fits, and never one still taken', () => {
    const pool = new BufferPool(4);
    const big = pool.take(1_000_000);
    const small = pool.take(20_000);
    const held = pool.take(20_000);
    expect(held.buffer).not.toBe(small.buffer);
    pool.give(big);
    pool.give(small);
    expect(pool.take(10_000).buffer).toBe(small.buffer);
    expect(pool.take(10_000).buffer).toBe(big.buffer);
    expect(pool.size).toBe(0);
    const fresh = pool.take(10_000);
    expect([small.buffer, big.buffer, held.buffer]).not.toContain(fresh.buffer);
  });

  it('keeps at most its count, the largest buffers first, and none past its size limit', () => {
    const pool = new BufferPool(2, 1024 * 1024);
    const [a, b, c] = [pool.take(20_000), pool.take(40_000), pool.take(100_000)];
    pool.give(a);
    pool.give(b);
    pool.give(c); // full: c takes the place of a, the smallest
    expect(pool.size).toBe(2);
    expect(pool.take(70_000).buffer).toBe(c.buffer);
    expect(pool.take(30_000).buffer).toBe(b.buffer);
    expect(pool.size).toBe(0);
    pool.give(pool.take(2 * 1024 * 1024));
    expect(pool.size).toBe(0);
  });
});
