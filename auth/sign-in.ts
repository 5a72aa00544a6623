// Wallet sign-in: a Sign-In With Solana style challenge (single use, short-lived), then a bearer token.
import type { Config } from '../config/env.ts';
import { fromBase58, utf8 } from '../protocol/encoding.ts';
import { PfwsError } from '../protocol/errors.ts';
import { verifyBase64Signature } from '../protocol/signatures.ts';
import type { AuthStore } from '../store/auth.ts';

export interface SignInDeps {
  auth: AuthStore;
  clock: () => Date;
  config: Pick<Config, 'CHALLENGE_TTL_MS' | 'TOKEN_TTL_MS' | 'cluster'>;
  /**
   * The URL the message names: PUBLIC_BASE_URL, or this server on the port it listens on — never the request's
   * Host, which a phishing site could set to its own domain.
   */
  publicUrl: () => string;
}

export function isWalletAddress(value: string): boolean {
  try {
    fromBase58(value, 32);
    return true;
  } catch {
    return false;
  }
}

const NONCE_RE = /^Nonce: ([0-9a-f]{32})$/m;

export async function issueChallenge(deps: SignInDeps, wallet: string) {
  if (wallet === '') throw new PfwsError('MISSING_WALLET', 'The wallet query parameter is required');
  if (!isWalletAddress(wallet)) throw new PfwsError('INVALID_WALLET_ADDRESS', 'wallet is not a valid Solana public key');
  const issued = deps.clock();
  const expires = new Date(issued.getTime() + deps.config.CHALLENGE_TTL_MS);
  const nonce = deps.auth.newNonce();
  const url = deps.publicUrl();
  const message = [
    `${new URL(url).host} wants you to sign in with your Solana account:`,
    wallet,
    '',
    'Sign in to the provably-fair wagering service (Protocol V1).',
    '',
    `URI: ${url}`,
    'Version: 1',
    `Chain ID: ${deps.config.cluster}`,
    `Nonce: ${nonce}`,
    `Issued At: ${issued.toISOString()}`,
    `Expiration Time: ${expires.toISOString()}`,
  ].join('\n');
  await deps.auth.saveChallenge(nonce, { wallet, message, expiresAtMs: expires.getTime() }, deps.config.CHALLENGE_TTL_MS);
  return { walletAddress: wallet, message, nonce, expiresAt: expires.toISOString() };
}

export async function openSession(deps: SignInDeps, body: { walletAddress: string; message: string; signature: string }) {
  const { walletAddress, message, signature } = body;
  if (!isWalletAddress(walletAddress)) throw new PfwsError('INVALID_WALLET_ADDRESS', 'walletAddress is not a valid Solana public key');
  const reject = (why: string) => new PfwsError('WALLET_SESSION_REJECTED', why);
  const nonce = NONCE_RE.exec(message)?.[1];
  const challenge = nonce ? await deps.auth.readChallenge(nonce) : null;
  if (!nonce || !challenge) throw reject('Unknown or already used challenge; fetch a new one');
  if (challenge.wallet !== walletAddress || challenge.message !== message) throw reject('The message is not the challenge issued to this wallet');
  const nowMs = deps.clock().getTime();
  if (nowMs > challenge.expiresAtMs) throw reject('The challenge expired; fetch a new one');
  if (!verifyBase64Signature(signature, utf8(message), walletAddress)) throw reject('The signature does not verify for this wallet and message');
  const expiresAtMs = nowMs + deps.config.TOKEN_TTL_MS;
  const token = await deps.auth.spendChallenge(nonce, walletAddress, expiresAtMs, nowMs);
  if (!token) throw reject('The challenge was already used; fetch a new one');
  return { token, walletAddress, expiresAt: new Date(expiresAtMs).toISOString() };
}
