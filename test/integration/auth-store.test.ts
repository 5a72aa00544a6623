// Sign-in state in Redis (issue 16): a token gone from Redis stops working on every API process within
// TOKEN_CACHE_TTL_MS, whatever they cached.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthStore } from '../../store/auth.ts';
import { Keys } from '../../store/keys.ts';
import { createRedis, type Redis } from '../../store/redis.ts';

let redis: Redis;
let keys: Keys;
const TTL_MS = 1_000;
/** A settable monotonic clock shared by the two "API processes". */
const clock = { ms: 0 };
const store = () => new AuthStore(redis, keys, { tokenCacheTtlMs: TTL_MS, now: () => clock.ms });
const tokenKey = (token: string) => keys.token(createHash('sha256').update(token).digest('hex'));

beforeAll(() => {
  redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  keys = new Keys(`test-auth-${randomBytes(4).toString('hex')}`);
});

afterAll(async () => {
  const left = await redis.keys(`${keys.prefix}:*`);
  if (left.length) await redis.del(...left);
  await redis.quit();
});

describe('the token cache', () => {
  it('lets a token deleted from Redis (revoked, or lost with a flush) work nowhere once TOKEN_CACHE_TTL_MS has passed', async () => {
    const [a, b] = [store(), store()];
    const now = Date.now();
    const token = await a.issueToken('wallet-1', now + 60_000, now);
    expect(await a.resolveToken(token, now)).toBe('wallet-1');
    expect(await b.resolveToken(token, now)).toBe('wallet-1');
    await redis.del(tokenKey(token));
    clock.ms += TTL_MS;
    expect(await a.resolveToken(token, now)).toBeNull();
    expect(await b.resolveToken(token, now)).toBeNull();
    // Not even rate limits count it for its wallet any more.
    expect(b.knownWallet(`Bearer ${token}`)).toBeNull();
  });

  it('still serves a live token from memory within the TTL', async () => {
    const s = store();
    const now = Date.now();
    const token = await s.issueToken('wallet-2', now + 60_000, now);
    expect(await s.resolveToken(token, now)).toBe('wallet-2');
    await redis.del(tokenKey(token));
    clock.ms += TTL_MS - 1;
    expect(await s.resolveToken(token, now)).toBe('wallet-2');
  });
});
