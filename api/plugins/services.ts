// Exposes the shared services (ledger, chain, keys) to every route.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';

declare module 'fastify' {
  interface FastifyInstance {
    services: Services;
  }
}

export default fp(
  async (app: FastifyInstance, options: { services: Services }) => {
    app.decorate('services', options.services);
  },
  { name: 'services' },
);
