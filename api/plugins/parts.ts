// Decorates the app with the parts the routes use, each typed, so a route names what it needs
// (`const { lifecycle, dice } = app`) and nothing hands it a bag of everything.
import fp from 'fastify-plugin';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../deps.ts';

declare module 'fastify' {
  interface FastifyInstance extends Omit<ApiDeps, 'logger'> {}
}

export default fp(
  async (app: FastifyInstance, deps: ApiDeps) => {
    for (const [name, part] of Object.entries(deps)) if (name !== 'logger') app.decorate(name, part);
  },
  { name: 'parts' },
);
