// Bearer authentication: `app.requireWallet` resolves the token to `request.wallet`.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PfwsError } from '../../protocol/errors.ts';

declare module 'fastify' {
  interface FastifyInstance {
    requireWallet: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest {
    wallet: string;
  }
}

const BEARER_RE = /^Bearer\s+(\S+)$/i;

export default fp(
  async (app: FastifyInstance) => {
    app.decorateRequest('wallet', '');
    app.decorate('requireWallet', async (request: FastifyRequest) => {
      const match = BEARER_RE.exec(request.headers.authorization ?? '');
      if (!match) throw new PfwsError('WALLET_SESSION_REQUIRED', 'A bearer token is required: GET /api/wallet/challenge, then POST /api/wallet/session');
      const wallet = await app.auth.resolveToken(match[1] as string, app.clock().getTime());
      if (!wallet) throw new PfwsError('WALLET_SESSION_REQUIRED', 'The bearer token is unknown or expired; sign in again');
      request.wallet = wallet;
    });
  },
  { name: 'auth', dependencies: ['parts'] },
);
