// Wallet sign-in: a Sign-In With Solana style challenge, then a bearer session (auth/sign-in.ts); sign-out revokes it.
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { responses } from '../../schemas/common.ts';
import { ChallengeQuery, SessionBody, SessionRevoked, WalletChallenge, WalletSession } from '../../schemas/wallet.ts';
import { bearerToken, issueChallenge, openSession, type SignInDeps } from '../../auth/sign-in.ts';
import type { ApiDeps } from '../deps.ts';

/** The parts these routes use. */
export type WalletRouteDeps = Pick<ApiDeps, 'config' | 'auth' | 'challenges' | 'clock'>;

export default async function walletRoutes(fastify: FastifyInstance, { config, auth, challenges, clock }: WalletRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const signIn: SignInDeps = {
    auth,
    challenges,
    clock,
    config,
    // PORT may be 0: the port the server really listens on.
    publicUrl: () => config.PUBLIC_BASE_URL ?? `http://localhost:${(app.server.address() as AddressInfo | null)?.port ?? config.PORT}`,
  };

  app.get(
    '/wallet/challenge',
    {
      config: { validationCode: 'MISSING_WALLET' },
      schema: { tags: ['wallet'], summary: 'Get a sign-in challenge', querystring: ChallengeQuery, response: responses({ 200: WalletChallenge }) },
    },
    async (request) => issueChallenge(signIn, request.query.wallet),
  );

  app.post(
    '/wallet/session',
    {
      config: { validationCode: 'INVALID_WALLET_SESSION_REQUEST' },
      schema: { tags: ['wallet'], summary: 'Exchange a signed challenge for a bearer token', body: SessionBody, response: responses({ 200: WalletSession }) },
    },
    async (request) => openSession(signIn, request.body),
  );

  app.delete(
    '/wallet/session',
    {
      onRequest: app.requireWallet,
      schema: {
        tags: ['wallet'],
        summary: 'Sign out: revoke this bearer token on every API process at once',
        security: [{ bearer: [] }],
        response: responses({ 200: SessionRevoked }, [401, 429, 500, 503]),
      },
    },
    async (request) => {
      await auth.revokeToken(bearerToken(request.headers.authorization) as string);
      return { revoked: true as const, walletAddress: request.wallet };
    },
  );
}
