// Sign-in state in Redis (issue 16): a token gone from Redis stops working on every API process within
// TOKEN_CACHE_TTL_MS, whatever they cached; a wallet holds a bounded number of challenges; a sign-in re-sent
// after a lost reply answers as the first run did.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthStore } from '../../store/auth.ts';
import { Keys } from '../../store/keys.ts';
import { createRedis, type Redis } from '../../store/redis.ts';
import { defineScripts } from '../../store/scripts.ts';

let redis: Redis;
let keys: Keys;
const TTL_MS = 1_000;
/** A settable monotonic clock shared by the two "API processes". */
const clock = { ms: 0 };
const store = () => new AuthStore(redis, keys, defineScripts(redis), { tokenCacheTtlMs: TTL_MS, maxChallengesPerWallet: 3, now: () => clock.ms });
const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** A challenge saved and spent: the store's side of a sign-in. */
async function signIn(s: AuthStore, wallet: string, now: number): Promise<string> {
  const nonce = s.newNonce();
  await s.saveChallenge(nonce, { wallet, message: 'm', expiresAtMs: now + 60_000 }, 60_000);
  const token = await s.spendChallenge(nonce, wallet, now + 60_000, now);
  if (!token) throw new Error('challenge not spent');
  return token;
}

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

describe('challenges', () => {
  it('keeps at most MAX_CHALLENGES_PER_WALLET outstanding per wallet: a new one voids the oldest', async () => {
    const s = store();
    const now = Date.now();
    const nonces = Array.from({ length: 4 }, () => s.newNonce());
    for (const nonce of nonces) await s.saveChallenge(nonce, { wallet: 'wallet-3', message: 'm', expiresAtMs: now + 60_000 }, 60_000);
    expect(await s.readChallenge(nonces[0]!)).toBeNull();
    for (const nonce of nonces.slice(1)) expect(await s.readChallenge(nonce)).not.toBeNull();
    expect(await redis.llen(keys.challenges('wallet-3'))).toBe(3);
    // Another wallet's challenges are its own.
    await s.saveChallenge(s.newNonce(), { wallet: 'wallet-4', message: 'm', expiresAtMs: now + 60_000 }, 60_000);
    expect(await s.readChallenge(nonces[1]!)).not.toBeNull();
    // A spent one leaves the count.
    expect(await s.spendChallenge(nonces[1]!, 'wallet-3', now + 60_000, now)).not.toBeNull();
    expect(await redis.llen(keys.challenges('wallet-3'))).toBe(2);
  });

  it('spends a challenge once; the same spend run again (a re-send after a lost reply) answers the same', async () => {
    const s = store();
    const scripts = defineScripts(redis);
    const now = Date.now();
    const nonce = s.newNonce();
    await s.saveChallenge(nonce, { wallet: 'wallet-5', message: 'm', expiresAtMs: now + 60_000 }, 60_000);
    const token = 'a-token';
    const run = () =>
      scripts.openSession(
        [keys.challenge(nonce), keys.challengeUsed(nonce), keys.token(sha(token)), keys.challenges('wallet-5')],
        [nonce, sha(token), JSON.stringify({ wallet: 'wallet-5', expiresAtMs: now + 60_000 }), 60_000, 60_000],
      );
    expect(await run()).toBe(1);
    expect(await run()).toBe(1);
    expect(await s.resolveToken(token, now)).toBe('wallet-5');
    // Anyone else's spend of it is refused.
    expect(await s.spendChallenge(nonce, 'wallet-5', now + 60_000, now)).toBeNull();
  });
});
