// The Fastify app as a plugin tree; only api/server.ts listens.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import rateLimit from '@fastify/rate-limit';
import secureJson from 'secure-json-parse';
import type { Services } from '../services.ts';
import servicesPlugin from './plugins/services.ts';
import errorsPlugin from './plugins/errors.ts';
import authPlugin from './plugins/auth.ts';
import walletRoutes from './routes/wallet.ts';
import playerRoutes from './routes/player.ts';
import houseRoutes from './routes/house.ts';
import configRoutes from './routes/config.ts';
import devRoutes from './routes/dev.ts';
import diceRoutes from './routes/dice.ts';
import receiptRoutes from './routes/receipts.ts';
import betLogRoutes from './routes/bet-log.ts';
import journalRoutes from './routes/journal.ts';
import stateProofRoutes from './routes/state-proof.ts';
import sweeperRoutes from './routes/sweeper.ts';
import { tailDeps } from '../indexer/deps.ts';
import { ApiError } from '../schemas/errors.ts';

export async function buildApp(services: Services): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: services.logger.child({ role: 'api' }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: true,
    ajv: { customOptions: { removeAdditional: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // POSTs that take no body (sync) are often sent with a JSON content type and nothing in it.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(body as string, { protoAction: 'error', constructorAction: 'error' }));
    } catch (err) {
      done(Object.assign(err as Error, { statusCode: 400 }), undefined);
    }
  });
  await app.register(servicesPlugin, { services });
  await app.register(errorsPlugin);
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: 'Provably-Fair Wagering Service (Protocol V1)', version: '1.0.0' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
  await app.register(rateLimit, {
    max: services.config.RATE_LIMIT_MAX,
    timeWindow: services.config.RATE_LIMIT_WINDOW_MS,
    keyGenerator: (request) => request.headers.authorization ?? request.ip,
    errorResponseBuilder: (_request, context) => new ApiError('RATE_LIMITED', `Rate limit exceeded; retry in ${context.after}`),
  });
  await app.register(authPlugin);

  const tail = tailDeps(services);
  await app.register(
    async (api) => {
      await api.register(walletRoutes);
      await api.register(configRoutes);
      await api.register(playerRoutes, { tail });
      await api.register(houseRoutes);
      await api.register(devRoutes);
      await api.register(diceRoutes);
      await api.register(receiptRoutes);
      await api.register(betLogRoutes);
      await api.register(journalRoutes);
      await api.register(stateProofRoutes);
      await api.register(sweeperRoutes);
    },
    { prefix: '/api' },
  );
  return app;
}
