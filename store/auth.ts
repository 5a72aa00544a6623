// Wallet challenges (single use, short-lived) and bearer tokens (stored only as sha256 hashes).
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import type { Scripts } from './scripts.ts';

export interface StoredChallenge {
  wallet: string;
  message: string;
  expiresAtMs: number;
}

export interface TokenRecord {
  wallet: string;
  expiresAtMs: number;
}

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');
// Redis keeps records a little longer than they are valid, so expiry is always judged by the service clock.
const GRACE_MS = 60_000;

export interface AuthStoreOptions {
  /**
   * How long a resolved token is trusted without asking Redis again: a token deleted there (or lost with its
   * data) stops working on every process within this long.
   */
  tokenCacheTtlMs: number;
  /** Outstanding challenges per wallet; a new one past the cap voids the oldest. */
  maxChallengesPerWallet: number;
  /** A monotonic clock in ms, for the cache's ages. */
  now?: () => number;
}

interface CachedToken {
  record: TokenRecord;
  cachedAtMs: number;
}

export class AuthStore {
  readonly #tokens = new Map<string, CachedToken>();
  readonly #ttlMs: number;
  readonly #maxChallenges: number;
  readonly #now: () => number;

  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: Scripts,
    options: AuthStoreOptions,
  ) {
    this.#ttlMs = options.tokenCacheTtlMs;
    this.#maxChallenges = options.maxChallengesPerWallet;
    this.#now = options.now ?? (() => performance.now());
  }

  newNonce(): string {
    return randomBytes(16).toString('hex');
  }

  /** Stores a challenge; past MAX_CHALLENGES_PER_WALLET outstanding for its wallet, the oldest is void. */
  async saveChallenge(nonce: string, challenge: StoredChallenge, ttlMs: number): Promise<void> {
    const k = this.keys;
    await this.scripts.saveCapped(
      [k.challenge(nonce), k.challenges(challenge.wallet)],
      [nonce, JSON.stringify(challenge), ttlMs + GRACE_MS, this.#maxChallenges, k.challengePrefix()],
    );
  }

  async readChallenge(nonce: string): Promise<StoredChallenge | null> {
    const raw = await this.redis.get(this.keys.challenge(nonce));
    return raw ? (JSON.parse(raw) as StoredChallenge) : null;
  }

  /**
   * Spends the challenge on a new token, at once; a re-send of the same call (after a lost reply) answers the same.
   * @returns the token, or null when someone else used the challenge first
   */
  async spendChallenge(nonce: string, wallet: string, expiresAtMs: number, nowMs: number): Promise<string | null> {
    const token = randomBytes(32).toString('base64url');
    const record: TokenRecord = { wallet, expiresAtMs };
    const k = this.keys;
    const spent = await this.scripts.openSession(
      [k.challenge(nonce), k.challengeUsed(nonce), k.token(hashToken(token)), k.challenges(wallet)],
      [nonce, hashToken(token), JSON.stringify(record), Math.max(1, expiresAtMs - nowMs) + GRACE_MS, GRACE_MS],
    );
    return spent === 1 ? token : null;
  }

  /**
   * The wallet of a bearer header whose token this process resolved lately; no I/O. Only for keying rate limits:
   * authentication always goes through {@link resolveToken}.
   */
  knownWallet(authorization: string | undefined): string | null {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    return token ? (this.#tokens.get(hashToken(token))?.record.wallet ?? null) : null;
  }

  /** The token's wallet, or null when it is unknown or expired at `nowMs`. */
  async resolveToken(token: string, nowMs: number): Promise<string | null> {
    const id = hashToken(token);
    const cached = this.#tokens.get(id);
    let record = cached && this.#now() - cached.cachedAtMs < this.#ttlMs ? cached.record : undefined;
    if (!record) {
      const raw = await this.redis.get(this.keys.token(id));
      if (!raw) {
        this.#tokens.delete(id);
        return null;
      }
      record = JSON.parse(raw) as TokenRecord;
      if (this.#tokens.size > 50_000) this.#tokens.clear();
      this.#tokens.set(id, { record, cachedAtMs: this.#now() });
    }
    return record.expiresAtMs > nowMs ? record.wallet : null;
  }
}
