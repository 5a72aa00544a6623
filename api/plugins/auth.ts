// Bearer authentication: `app.requireWallet` resolves the token to `request.wallet`.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../schemas/errors.ts';
import { AuthStore } from '../../store/auth.ts';

declare module 'fastify' {
  interface FastifyInstance {
    authStore: AuthStore;
    requireWallet: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest {
    wallet: string;
  }
}

const BEARER_RE = /^Bearer\s+(\S+)$/i;

export default fp(
  async (app: FastifyInstance) => {
    const store = new AuthStore(app.services.redis, app.services.keys);
    app.decorate('authStore', store);
    app.decorateRequest('wallet', '');
    app.decorate('requireWallet', async (request: FastifyRequest) => {
      const match = BEARER_RE.exec(request.headers.authorization ?? '');
      if (!match) throw new ApiError('WALLET_SESSION_REQUIRED', 'A bearer token is required: GET /api/wallet/challenge, then POST /api/wallet/session');
      const wallet = await store.resolveToken(match[1] as string, app.services.now().getTime());
      if (!wallet) throw new ApiError('WALLET_SESSION_REQUIRED', 'The bearer token is unknown or expired; sign in again');
      request.wallet = wallet;
    });
  },
  { name: 'auth', dependencies: ['services'] },
);
