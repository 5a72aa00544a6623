// Wallet challenges (single use, short-lived) and bearer tokens (stored only as sha256 hashes).
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';

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
  readonly #now: () => number;

  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    options: AuthStoreOptions = { tokenCacheTtlMs: 1_000 },
  ) {
    this.#ttlMs = options.tokenCacheTtlMs;
    this.#now = options.now ?? (() => performance.now());
  }

  newNonce(): string {
    return randomBytes(16).toString('hex');
  }

  async saveChallenge(nonce: string, challenge: StoredChallenge, ttlMs: number): Promise<void> {
    await this.redis.set(this.keys.challenge(nonce), JSON.stringify(challenge), 'PX', ttlMs + GRACE_MS);
  }

  async readChallenge(nonce: string): Promise<StoredChallenge | null> {
    const raw = await this.redis.get(this.keys.challenge(nonce));
    return raw ? (JSON.parse(raw) as StoredChallenge) : null;
  }

  /** @returns false when someone else used the challenge first */
  async consumeChallenge(nonce: string): Promise<boolean> {
    return (await this.redis.del(this.keys.challenge(nonce))) === 1;
  }

  async issueToken(wallet: string, expiresAtMs: number, nowMs: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const record: TokenRecord = { wallet, expiresAtMs };
    await this.redis.set(this.keys.token(hashToken(token)), JSON.stringify(record), 'PX', Math.max(1, expiresAtMs - nowMs) + GRACE_MS);
    return token;
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
