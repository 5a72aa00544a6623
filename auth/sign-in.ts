// Wallet sign-in: a Sign-In With Solana style challenge (stateless, MAC'd, single use, short-lived), then a bearer token.
import type { Config } from '../config/env.ts';
import { utf8 } from '../protocol/encoding.ts';
import { isAddress } from '../protocol/address.ts';
import { PfwsError } from '../protocol/errors.ts';
import { verifyBase64Signature } from '../protocol/signatures.ts';
import type { AuthStore } from '../store/auth.ts';
import { challengeMessage, type ChallengeMac } from './challenge.ts';

export interface SignInDeps {
  auth: Pick<AuthStore, 'spendNonce'>;
  /** Makes and checks the nonces; every API process holds the same secret. */
  challenges: ChallengeMac;
  clock: () => Date;
  config: Pick<Config, 'CHALLENGE_TTL_MS' | 'TOKEN_TTL_MS' | 'cluster'>;
  /**
   * The URL the message names: PUBLIC_BASE_URL, or this server on the port it listens on — never the request's
   * Host, which a phishing site could set to its own domain.
   */
  publicUrl: () => string;
}

/** The token of an `Authorization: Bearer <token>` header, or null. */
export function bearerToken(authorization: string | undefined): string | null {
  return /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1] ?? null;
}

/** A challenge: nothing is stored, so a stranger asking for more of them for a wallet voids none of its own. */
export async function issueChallenge(deps: SignInDeps, wallet: string) {
  if (wallet === '') throw new PfwsError('MISSING_WALLET', 'The wallet query parameter is required');
  if (!isAddress(wallet)) throw new PfwsError('INVALID_WALLET_ADDRESS', 'wallet is not a valid Solana public key');
  const issued = deps.clock();
  const expires = new Date(issued.getTime() + deps.config.CHALLENGE_TTL_MS);
  const fields = { url: deps.publicUrl(), wallet, cluster: deps.config.cluster, issuedAt: issued.toISOString(), expiresAt: expires.toISOString() };
  const nonce = deps.challenges.nonce(fields);
  return { walletAddress: wallet, message: challengeMessage({ ...fields, nonce }), nonce, expiresAt: fields.expiresAt };
}

export async function openSession(deps: SignInDeps, body: { walletAddress: string; message: string; signature: string }) {
  const { walletAddress, message, signature } = body;
  if (!isAddress(walletAddress)) throw new PfwsError('INVALID_WALLET_ADDRESS', 'walletAddress is not a valid Solana public key');
  const reject = (why: string) => new PfwsError('WALLET_SESSION_REJECTED', why);
  const challenge = deps.challenges.verify(message, walletAddress);
  if (!challenge) throw reject('The message is not a challenge this service issued to this wallet; fetch a new one');
  const nowMs = deps.clock().getTime();
  const challengeExpiresMs = Date.parse(challenge.expiresAt);
  if (!(nowMs <= challengeExpiresMs)) throw reject('The challenge expired; fetch a new one');
  if (!verifyBase64Signature(signature, utf8(message), walletAddress)) throw reject('The signature does not verify for this wallet and message');
  const expiresAtMs = nowMs + deps.config.TOKEN_TTL_MS;
  const token = await deps.auth.spendNonce(challenge.nonce, { wallet: walletAddress, expiresAtMs }, nowMs, challengeExpiresMs);
  if (!token) throw reject('The challenge was already used; fetch a new one');
  return { token, walletAddress, expiresAt: new Date(expiresAtMs).toISOString() };
}
