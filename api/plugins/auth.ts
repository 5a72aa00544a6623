// Bearer authentication: `app.requireWallet` resolves the token to `request.wallet`. While the app runs, this process
// follows token revocations (store/auth.ts), so a signed-out token stops working here at once.
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PfwsError } from '../../protocol/errors.ts';
import { bearerToken } from '../../auth/sign-in.ts';
import type { RevocationFeed } from '../../store/auth.ts';
import type { ApiDeps } from '../deps.ts';
import type { Address } from '../../protocol/address.ts';

declare module 'fastify' {
  interface FastifyInstance {
    requireWallet: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest {
    /** The signed-in wallet; set by `requireWallet` only. */
    wallet: Address;
  }
}

/** The parts bearer authentication uses. */
export type AuthPluginDeps = Pick<ApiDeps, 'auth' | 'clock' | 'config'>;

export default fp(
  async (app: FastifyInstance, { auth, clock, config }: AuthPluginDeps) => {
    app.decorateRequest('wallet', '' as Address);
    app.decorate('requireWallet', async (request: FastifyRequest) => {
      const token = bearerToken(request.headers.authorization);
      if (!token) throw new PfwsError('WALLET_SESSION_REQUIRED', 'A bearer token is required: GET /api/wallet/challenge, then POST /api/wallet/session');
      const wallet = await auth.resolveToken(token, clock().getTime());
      if (!wallet) throw new PfwsError('WALLET_SESSION_REQUIRED', 'The bearer token is unknown, revoked or expired; sign in again');
      request.wallet = wallet;
    });
    let feed: RevocationFeed | null = null;
    app.addHook('onReady', async () => {
      feed = auth.watchRevocations(config.redis);
      // Serving before it is subscribed would let a revocation pass unheard (the cache TTL would still end it).
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, config.REDIS_COMMAND_TIMEOUT_MS);
      });
      await Promise.race([feed.ready(), bound]).finally(() => clearTimeout(timer));
    });
    app.addHook('onClose', async () => {
      await feed?.close();
    });
  },
  { name: 'auth' },
);
