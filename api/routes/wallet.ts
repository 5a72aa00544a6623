// Wallet sign-in: a Sign-In With Solana style challenge, then a bearer session.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError } from '../../schemas/errors.ts';
import { responses } from '../../schemas/common.ts';
import { ChallengeQuery, SessionBody, WalletChallenge, WalletSession } from '../../schemas/wallet.ts';
import { verifyBase64Signature } from '../../protocol/signatures.ts';
import { fromBase58, utf8 } from '../../protocol/encoding.ts';

export function isWalletAddress(value: string): boolean {
  try {
    fromBase58(value, 32);
    return true;
  } catch {
    return false;
  }
}

const NONCE_RE = /^Nonce: ([0-9a-f]{32})$/m;

export default async function walletRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { config, now } = app.services;
  // Never the request's Host: a phishing site could have the message name its own domain. Without
  // PUBLIC_BASE_URL it names this server on the port it really listens on (PORT may be 0).
  const publicUrl = () => config.PUBLIC_BASE_URL ?? `http://localhost:${(app.server.address() as AddressInfo | null)?.port ?? config.PORT}`;

  app.get(
    '/wallet/challenge',
    {
      config: { validationCode: 'MISSING_WALLET' },
      schema: { tags: ['wallet'], summary: 'Get a sign-in challenge', querystring: ChallengeQuery, response: responses({ 200: WalletChallenge }) },
    },
    async (request) => {
      const wallet = request.query.wallet;
      if (wallet === '') throw new ApiError('MISSING_WALLET', 'The wallet query parameter is required');
      if (!isWalletAddress(wallet)) throw new ApiError('INVALID_WALLET_ADDRESS', 'wallet is not a valid Solana public key');
      const issued = now();
      const expires = new Date(issued.getTime() + config.CHALLENGE_TTL_MS);
      const nonce = app.authStore.newNonce();
      const url = publicUrl();
      const domain = new URL(url).host;
      const message = [
        `${domain} wants you to sign in with your Solana account:`,
        wallet,
        '',
        'Sign in to the provably-fair wagering service (Protocol V1).',
        '',
        `URI: ${url}`,
        'Version: 1',
        `Chain ID: ${config.cluster}`,
        `Nonce: ${nonce}`,
        `Issued At: ${issued.toISOString()}`,
        `Expiration Time: ${expires.toISOString()}`,
      ].join('\n');
      await app.authStore.saveChallenge(nonce, { wallet, message, expiresAtMs: expires.getTime() }, config.CHALLENGE_TTL_MS);
      return { walletAddress: wallet, message, nonce, expiresAt: expires.toISOString() };
    },
  );

  app.post(
    '/wallet/session',
    {
      config: { validationCode: 'INVALID_WALLET_SESSION_REQUEST' },
      schema: { tags: ['wallet'], summary: 'Exchange a signed challenge for a bearer token', body: SessionBody, response: responses({ 200: WalletSession }) },
    },
    async (request) => {
      const { walletAddress, message, signature } = request.body;
      if (!isWalletAddress(walletAddress)) throw new ApiError('INVALID_WALLET_ADDRESS', 'walletAddress is not a valid Solana public key');
      const reject = (why: string) => new ApiError('WALLET_SESSION_REJECTED', why);
      const nonce = NONCE_RE.exec(message)?.[1];
      const challenge = nonce ? await app.authStore.readChallenge(nonce) : null;
      if (!nonce || !challenge) throw reject('Unknown or already used challenge; fetch a new one');
      if (challenge.wallet !== walletAddress || challenge.message !== message) throw reject('The message is not the challenge issued to this wallet');
      const nowMs = now().getTime();
      if (nowMs > challenge.expiresAtMs) throw reject('The challenge expired; fetch a new one');
      if (!verifyBase64Signature(signature, utf8(message), walletAddress)) throw reject('The signature does not verify for this wallet and message');
      if (!(await app.authStore.consumeChallenge(nonce))) throw reject('The challenge was already used; fetch a new one');
      const expiresAtMs = nowMs + config.TOKEN_TTL_MS;
      const token = await app.authStore.issueToken(walletAddress, expiresAtMs, nowMs);
      return { token, walletAddress, expiresAt: new Date(expiresAtMs).toISOString() };
    },
  );
}
