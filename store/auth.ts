// Sign-in state: the nonces of spent challenges (challenges themselves are stateless, auth/challenge.ts) and bearer
// tokens (stored only as sha256 hashes), with each API process's short cache of them and its revocation feed.
import { hash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import { createRedis, type RedisAddress } from './redis.ts';
import type { Scripts } from './scripts.ts';
import type { Address } from '../protocol/address.ts';

export interface TokenRecord {
  /** Parsed at sign-in, before the token was made: a stored record holds a checked address. */
  wallet: Address;
  expiresAtMs: number;
}

// One-shot: every request hashes its bearer token (the rate limiter's key, then the session lookup).
const hashToken = (token: string): string => hash('sha256', token, 'hex');
// Redis keeps records a little longer than they are valid, so expiry is always judged by the service clock.
const GRACE_MS = 60_000;

export interface AuthStoreOptions {
  /**
   * How long a resolved token is trusted without asking Redis again: a token deleted there (or lost with its
   * data) stops working on every process within this long, even one whose revocation feed missed the news.
   */
  tokenCacheTtlMs: number;
  /** A monotonic clock in ms, for the cache's ages. */
  now?: () => number;
}

interface CachedToken {
  record: TokenRecord;
  cachedAtMs: number;
}

/** The revocation feed of one process (see {@link AuthStore.watchRevocations}). */
export interface RevocationFeed {
  /** Resolves once the channel is subscribed. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** How long a revoked token's hash is remembered, so that a read already in flight when it was revoked is not cached. */
const REVOKED_MEMORY_MS = 60_000;

export class AuthStore {
  readonly #tokens = new Map<string, CachedToken>();
  /** Token hashes revoked lately, with when (insertion order is time order). */
  readonly #revoked = new Map<string, number>();
  /** Bumped whenever the cache is dropped whole, so a read in flight across it is not cached. */
  #epoch = 0;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: Scripts,
    options: AuthStoreOptions,
  ) {
    this.#ttlMs = options.tokenCacheTtlMs;
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * Spends a challenge's nonce on a new token, at once: the nonce joins the used set until its challenge has
   * expired (store/scripts/open_session.lua), so a challenge signs in once. A re-send of the same call (after a
   * lost reply) answers the same.
   * @returns the token, or null when the nonce was spent before
   */
  async spendNonce(nonce: string, record: TokenRecord, nowMs: number, challengeExpiresAtMs: number): Promise<string | null> {
    const token = randomBytes(32).toString('base64url');
    const id = hashToken(token);
    const spent = await this.scripts.openSession(
      [this.keys.challengeUsed(nonce), this.keys.token(id)],
      [id, JSON.stringify(record), Math.max(1, record.expiresAtMs - nowMs) + GRACE_MS, Math.max(1, challengeExpiresAtMs - nowMs) + GRACE_MS],
    );
    return spent === 1 ? token : null;
  }

  /**
   * Revokes a token everywhere: its record is deleted and every process's revocation feed drops its cached copy
   * (store/scripts/revoke_token.lua); this process drops its own at once.
   * @returns whether the token was still live in Redis
   */
  async revokeToken(token: string): Promise<boolean> {
    const id = hashToken(token);
    this.#forget(id);
    return (await this.scripts.revokeToken([this.keys.token(id)], [this.keys.tokenRevocations(), id])) === 1;
  }

  /**
   * The wallet of a bearer header whose token this process resolved lately; no I/O. Only for keying rate limits:
   * authentication always goes through {@link resolveToken}.
   */
  knownWallet(authorization: string | undefined): Address | null {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    return token ? (this.#tokens.get(hashToken(token))?.record.wallet ?? null) : null;
  }

  /** The token's wallet, or null when it is unknown, revoked or expired at `nowMs`. */
  async resolveToken(token: string, nowMs: number): Promise<Address | null> {
    const id = hashToken(token);
    const cached = this.#tokens.get(id);
    let record = cached && this.#now() - cached.cachedAtMs < this.#ttlMs ? cached.record : undefined;
    if (!record) {
      // Aged from when it was asked, so the cache never outlives a deletion by more than the TTL.
      const askedAtMs = this.#now();
      const epoch = this.#epoch;
      const raw = await this.redis.get(this.keys.token(id));
      if (!raw || this.#revoked.has(id)) {
        this.#tokens.delete(id);
        return null;
      }
      record = JSON.parse(raw) as TokenRecord;
      if (epoch === this.#epoch) {
        if (this.#tokens.size > 50_000) this.#tokens.clear();
        this.#tokens.set(id, { record, cachedAtMs: askedAtMs });
      }
    }
    return record.expiresAtMs > nowMs ? record.wallet : null;
  }

  /**
   * Subscribes this process to token revocations on a connection of its own. While it is down, revocations may be
   * missed, so the cache is dropped whenever it closes or comes back; the cache TTL bounds the rest.
   */
  watchRevocations(target: RedisAddress): RevocationFeed {
    const channel = this.keys.tokenRevocations();
    const sub = createRedis(target, {
      enableAutoPipelining: false,
      maxRetriesPerRequest: null,
      connectionName: `${this.keys.prefix}:token-revocations`,
    });
    let closing = false;
    let resolve: () => void = () => {};
    const subscribed = new Promise<void>((r) => {
      resolve = r;
    });
    const dropAll = () => {
      this.#epoch++;
      this.#tokens.clear();
    };
    // ioredis subscribes again by itself after a reconnect; 'ready' comes before that, so the cache is dropped after.
    sub.on('ready', dropAll);
    sub.on('close', dropAll);
    // Reconnection is ioredis's; an error event only must not crash the process.
    sub.on('error', () => {});
    sub.on('message', (_channel: string, id: string) => this.#forget(id));
    sub.subscribe(channel).then(resolve, () => {
      if (!closing) sub.disconnect(true);
    });
    return {
      ready: () => subscribed,
      close: async () => {
        closing = true;
        sub.disconnect();
      },
    };
  }

  #forget(id: string): void {
    this.#tokens.delete(id);
    const now = this.#now();
    this.#revoked.delete(id);
    this.#revoked.set(id, now);
    for (const [old, at] of this.#revoked) {
      if (now - at < REVOKED_MEMORY_MS && this.#revoked.size <= 100_000) break;
      this.#revoked.delete(old);
    }
  }
}
