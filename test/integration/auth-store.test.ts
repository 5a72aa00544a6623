// Sign-in state in Redis (issues 16 and 21): a token gone from Redis stops working on every API process within
// TOKEN_CACHE_TTL_MS, whatever they cached; a revoked token stops at once on every process that follows the
// revocation feed; a challenge's nonce is spent once, and a sign-in re-sent after a lost reply answers as the first.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthStore, type RevocationFeed } from '../../store/auth.ts';
import { Keys } from '../../store/keys.ts';
import { createRedis, type Redis } from '../../store/redis.ts';
import { defineScripts } from '../../store/scripts.ts';
import type { Address } from '../../protocol/address.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
let redis: Redis;
let keys: Keys;
const TTL_MS = 1_000;
/** A settable monotonic clock shared by the "API processes": the cache TTL passes only when a test moves it. */
const clock = { ms: 0 };
const store = () => new AuthStore(redis, keys, defineScripts(redis), { tokenCacheTtlMs: TTL_MS, now: () => clock.ms });
const sha = (text: string) => createHash('sha256').update(text).digest('hex');
const feeds: RevocationFeed[] = [];

/** The store's side of a sign-in: a fresh nonce spent on a token. */
async function signIn(s: AuthStore, wallet: string, now: number): Promise<string> {
  const token = await s.spendNonce(randomBytes(32).toString('hex'), { wallet: wallet as Address, expiresAtMs: now + 60_000 }, now, now + 60_000);
  if (!token) throw new Error('nonce not spent');
  return token;
}

const tokenKey = (token: string) => keys.token(sha(token));

/** A store that follows the revocation feed, as an API process does while it runs. */
async function following(): Promise<AuthStore> {
  const s = store();
  const feed = s.watchRevocations(REDIS_URL);
  feeds.push(feed);
  await feed.ready();
  return s;
}

beforeAll(() => {
  redis = createRedis(REDIS_URL);
  keys = new Keys(`test-auth-${randomBytes(4).toString('hex')}`);
});

afterAll(async () => {
  for (const feed of feeds) await feed.close();
  const left = await redis.keys(`${keys.prefix}:*`);
  if (left.length) await redis.del(...left);
  await redis.quit();
});

describe('the token cache', () => {
  it('lets a token deleted from Redis (or lost with a flush) work nowhere once TOKEN_CACHE_TTL_MS has passed', async () => {
    const [a, b] = [store(), store()];
    const now = Date.now();
    const token = await signIn(a, 'wallet-1', now);
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
    const token = await signIn(s, 'wallet-2', now);
    expect(await s.resolveToken(token, now)).toBe('wallet-2');
    await redis.del(tokenKey(token));
    clock.ms += TTL_MS - 1;
    expect(await s.resolveToken(token, now)).toBe('wallet-2');
  });
});

describe('revocation', () => {
  it('stops a token at once on the revoking process and on every process following the feed, before the TTL', async () => {
    const [a, b, c] = [await following(), await following(), await following()];
    const now = Date.now();
    const token = await signIn(a, 'wallet-r1', now);
    const other = await signIn(a, 'wallet-r2', now);
    for (const s of [a, b, c]) {
      expect(await s.resolveToken(token, now)).toBe('wallet-r1');
      expect(await s.resolveToken(other, now)).toBe('wallet-r2');
    }
    expect(await a.revokeToken(token)).toBe(true);
    expect(await redis.exists(tokenKey(token))).toBe(0);
    // The clock of the cache does not move: only the revocation can end the cached copies.
    expect(await a.resolveToken(token, now)).toBeNull();
    await vi.waitFor(async () => expect(await b.resolveToken(token, now)).toBeNull(), { timeout: 10_000, interval: 20 });
    await vi.waitFor(async () => expect(await c.resolveToken(token, now)).toBeNull(), { timeout: 10_000, interval: 20 });
    expect(c.knownWallet(`Bearer ${token}`)).toBeNull();
    // Another token of the same wallet's owner is untouched.
    for (const s of [a, b, c]) expect(await s.resolveToken(other, now)).toBe('wallet-r2');
    // Revoking again is harmless.
    expect(await b.revokeToken(token)).toBe(false);
  });

  it('drops the whole cache when the feed closes, so a revocation it missed is honoured on the next request', async () => {
    const s = store();
    const feed = s.watchRevocations(REDIS_URL);
    await feed.ready();
    const now = Date.now();
    const token = await signIn(s, 'wallet-r3', now);
    expect(await s.resolveToken(token, now)).toBe('wallet-r3');
    await feed.close();
    // Revoked by another process while this one heard nothing.
    await store().revokeToken(token);
    await vi.waitFor(async () => expect(await s.resolveToken(token, now)).toBeNull(), { timeout: 10_000, interval: 20 });
  });
});

describe('challenge nonces', () => {
  it('spends a nonce once, and keeps it in the used set only until its challenge has expired', async () => {
    const s = store();
    const now = Date.now();
    const nonce = randomBytes(32).toString('hex');
    const token = await s.spendNonce(nonce, { wallet: 'wallet-5' as Address, expiresAtMs: now + 86_400_000 }, now, now + 30_000);
    expect(token).not.toBeNull();
    expect(await s.resolveToken(token!, now)).toBe('wallet-5');
    expect(await s.spendNonce(nonce, { wallet: 'wallet-5' as Address, expiresAtMs: now + 86_400_000 }, now, now + 30_000)).toBeNull();
    const ttl = await redis.pttl(keys.challengeUsed(nonce));
    expect(ttl).toBeGreaterThan(30_000);
    expect(ttl).toBeLessThanOrEqual(90_000);
    expect(await redis.pttl(tokenKey(token!))).toBeGreaterThan(86_400_000);
  });

  it('answers the same to the same spend run again (a re-send after a lost reply), and refuses any other', async () => {
    const s = store();
    const scripts = defineScripts(redis);
    const now = Date.now();
    const nonce = randomBytes(32).toString('hex');
    const token = 'a-token';
    const run = () =>
      scripts.openSession(
        [keys.challengeUsed(nonce), keys.token(sha(token))],
        [sha(token), JSON.stringify({ wallet: 'wallet-6' as Address, expiresAtMs: now + 60_000 }), 60_000, 60_000],
      );
    expect(await run()).toBe(1);
    expect(await run()).toBe(1);
    expect(await s.resolveToken(token, now)).toBe('wallet-6');
    expect(await s.spendNonce(nonce, { wallet: 'wallet-6' as Address, expiresAtMs: now + 60_000 }, now, now + 60_000)).toBeNull();
  });
});
