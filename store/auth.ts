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

export class AuthStore {
  readonly #tokens = new Map<string, TokenRecord>();

  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
  ) {}

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

  /** The wallet of a bearer header whose token this process already resolved; no I/O. */
  knownWallet(authorization: string | undefined): string | null {
    const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
    return token ? (this.#tokens.get(hashToken(token))?.wallet ?? null) : null;
  }

  /** The token's wallet, or null when it is unknown or expired at `nowMs`. */
  async resolveToken(token: string, nowMs: number): Promise<string | null> {
    const id = hashToken(token);
    let record = this.#tokens.get(id);
    if (!record) {
      const raw = await this.redis.get(this.keys.token(id));
      if (!raw) return null;
      record = JSON.parse(raw) as TokenRecord;
      if (this.#tokens.size > 50_000) this.#tokens.clear();
      this.#tokens.set(id, record);
    }
    return record.expiresAtMs > nowMs ? record.wallet : null;
  }
}
