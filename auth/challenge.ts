/**
 * Stateless sign-in challenges: nothing is stored when a challenge is issued, so no one but its owner can void one.
 * The nonce is 16 random bytes followed by an HMAC-SHA256 (truncated to 16 bytes) under a secret every API process
 * shares, over the URI, the wallet, those random bytes and the issued and expiration times. A session checks the MAC
 * and rebuilds the message from its fields, so the message is exactly one this service issued, to that wallet.
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** What a challenge message says, in the Sign-In With Solana layout (design §5). */
export interface ChallengeFields {
  /** The URL the message names (its domain is the first line). */
  url: string;
  wallet: string;
  cluster: string;
  nonce: string;
  issuedAt: string;
  expiresAt: string;
}

const STATEMENT = 'Sign in to the provably-fair wagering service (Protocol V1).';
const RANDOM_BYTES = 16;
const MAC_BYTES = 16;
const NONCE_RE = new RegExp(`^[0-9a-f]{${2 * (RANDOM_BYTES + MAC_BYTES)}}$`);

/**
 * The message to sign.
 * @throws {TypeError} when `url` is not an absolute URL
 */
export function challengeMessage(f: ChallengeFields): string {
  return [
    `${new URL(f.url).host} wants you to sign in with your Solana account:`,
    f.wallet,
    '',
    STATEMENT,
    '',
    `URI: ${f.url}`,
    'Version: 1',
    `Chain ID: ${f.cluster}`,
    `Nonce: ${f.nonce}`,
    `Issued At: ${f.issuedAt}`,
    `Expiration Time: ${f.expiresAt}`,
  ].join('\n');
}

const field = (lines: readonly string[], index: number, name: string): string | null => {
  const line = lines[index];
  return line?.startsWith(`${name}: `) ? line.slice(name.length + 2) : null;
};

/**
 * The fields of a message in the challenge layout, or null when it has another layout. Only the layout is read
 * here: whether this service issued it is {@link ChallengeMac.verify}'s to say.
 */
export function parseChallenge(message: string): ChallengeFields | null {
  const lines = message.split('\n');
  if (lines.length !== 11) return null;
  const url = field(lines, 5, 'URI');
  const cluster = field(lines, 7, 'Chain ID');
  const nonce = field(lines, 8, 'Nonce');
  const issuedAt = field(lines, 9, 'Issued At');
  const expiresAt = field(lines, 10, 'Expiration Time');
  if (url === null || cluster === null || nonce === null || issuedAt === null || expiresAt === null) return null;
  return { url, wallet: lines[1] ?? '', cluster, nonce, issuedAt, expiresAt };
}

/** Makes and checks challenge nonces under one 32-byte secret (KEYS_DIR/challenge.secret). */
export class ChallengeMac {
  readonly #secret: Uint8Array;

  constructor(secret: Uint8Array) {
    if (secret.length !== 32) throw new Error('the challenge secret must be 32 bytes');
    this.#secret = secret;
  }

  #mac(f: Omit<ChallengeFields, 'nonce'>, random: string): Buffer {
    const text = `pfws:v1:challenge:${f.url}:${f.cluster}:${f.wallet}:${random}:${f.issuedAt}:${f.expiresAt}`;
    return createHmac('sha256', this.#secret).update(text).digest().subarray(0, MAC_BYTES);
  }

  /** A fresh nonce for a challenge with these fields: random bytes, then their MAC. */
  nonce(f: Omit<ChallengeFields, 'nonce'>): string {
    const random = randomBytes(RANDOM_BYTES).toString('hex');
    return random + this.#mac(f, random).toString('hex');
  }

  /** Whether `message` is exactly a challenge this secret issued for `wallet` (its expiry is the caller's to check). */
  verify(message: string, wallet: string): ChallengeFields | null {
    const f = parseChallenge(message);
    if (!f || f.wallet !== wallet || !NONCE_RE.test(f.nonce)) return null;
    let rebuilt: string;
    try {
      rebuilt = challengeMessage(f);
    } catch {
      return null;
    }
    if (rebuilt !== message) return null;
    const random = f.nonce.slice(0, 2 * RANDOM_BYTES);
    const mac = Buffer.from(f.nonce.slice(2 * RANDOM_BYTES), 'hex');
    return timingSafeEqual(mac, this.#mac(f, random)) ? f : null;
  }
}
