// The rate limit's one budget (api/rate-limit-budget.ts): processes lease slots from Redis in chunks and count locally,
// so never more than `max` requests pass in a window across all of them, most requests make no Redis call, refused
// ones make none, and a Redis that cannot lease gives the request an error rather than a pass.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyRateLimitStore } from '@fastify/rate-limit';
import { LEASE_SHARE, leasedBudgetStore } from '../../api/rate-limit-budget.ts';
import { Keys } from '../../store/keys.ts';
import { RateLimitLeases } from '../../store/rate-limit.ts';
import { createRedis, type Redis } from '../../store/redis.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let redis: Redis;
let keys: Keys;

beforeAll(() => {
  redis = createRedis(REDIS_URL);
  keys = new Keys(`test-ratelimit-${randomBytes(4).toString('hex')}`);
});
afterAll(async () => {
  const found = await redis.keys(`${keys.rateLimit()}*`);
  if (found.length) await redis.del(...found);
  await redis.quit();
});

/** An API process's store, counting the leases it asks Redis for. */
function processStore(clock: { ms: number } = { ms: Date.now() }) {
  const leases = new RateLimitLeases(redis, keys.rateLimit());
  const counted = { calls: 0 };
  const lease = leases.lease.bind(leases);
  leases.lease = (id, count, windowMs) => {
    counted.calls++;
    return lease(id, count, windowMs);
  };
  const Store = leasedBudgetStore(leases, () => clock.ms);
  return { store: new Store({}), counted };
}

const incr = (store: FastifyRateLimitStore, id: string, windowMs: number, max: number) =>
  new Promise<{ current: number; ttl: number }>((resolve, reject) => store.incr(id, (err, res) => (err || !res ? reject(err) : resolve(res)), windowMs, max));
const passes = (results: { current: number }[], max: number) => results.filter((r) => r.current <= max).length;

describe('the leased rate-limit budget', () => {
  it('lets exactly max pass across processes that ask for more than the budget, in any interleaving', async () => {
    const max = 1_000;
    const id = `wallet-${randomBytes(4).toString('hex')}`;
    const a = processStore();
    const b = processStore();
    const results = await Promise.all(Array.from({ length: 3 * max }, (_, i) => incr((i % 3 === 0 ? a : b).store, id, 60_000, max)));
    expect(passes(results, max)).toBe(max);
    // Every slot handed out is distinct: no two requests count as the same one.
    const slots = results.filter((r) => r.current <= max).map((r) => r.current);
    expect(new Set(slots).size).toBe(max);
    // A few leases each, not one Redis call per request; once spent, refusals ask Redis nothing.
    expect(a.counted.calls + b.counted.calls).toBeLessThan(max / 5);
    const calls = a.counted.calls + b.counted.calls;
    expect((await incr(a.store, id, 60_000, max)).current).toBeGreaterThan(max);
    expect((await incr(b.store, id, 60_000, max)).current).toBeGreaterThan(max);
    expect(a.counted.calls + b.counted.calls).toBe(calls);
  });

  it('is exact for a small budget: one slot per lease once fewer than LEASE_SHARE are left', async () => {
    const max = LEASE_SHARE - 1;
    const id = `ip-${randomBytes(4).toString('hex')}`;
    const a = processStore();
    const b = processStore();
    const results: { current: number }[] = [];
    for (let i = 0; i < max; i++) results.push(await incr((i % 2 ? a : b).store, id, 60_000, max));
    expect(passes(results, max)).toBe(max);
    expect(a.counted.calls + b.counted.calls).toBe(max);
    expect((await incr(a.store, id, 60_000, max)).current).toBe(max + 1);
  });

  it('opens a fresh budget when the window ends', async () => {
    const max = 20;
    const id = `wallet-${randomBytes(4).toString('hex')}`;
    const clock = { ms: Date.now() };
    const a = processStore(clock);
    const first = await Promise.all(Array.from({ length: max + 5 }, () => incr(a.store, id, 200, max)));
    expect(passes(first, max)).toBe(max);
    await new Promise((r) => setTimeout(r, 250));
    clock.ms += 250;
    const next = await incr(a.store, id, 200, max);
    expect(next.current).toBe(1);
    expect(next.ttl).toBeGreaterThan(0);
    expect(next.ttl).toBeLessThanOrEqual(200);
  });

  it('fails the request when Redis cannot lease, and does not pass it', async () => {
    const leases = new RateLimitLeases(redis, keys.rateLimit());
    leases.lease = async () => {
      throw new Error('Connection is closed.');
    };
    const Store = leasedBudgetStore(leases);
    await expect(incr(new Store({}), 'anyone', 60_000, 10)).rejects.toThrow('Connection is closed.');
  });
});
