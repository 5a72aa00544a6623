// The Fastify app as a plugin tree, built from the parts the API role takes; only api/server.ts listens.
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import rateLimit from '@fastify/rate-limit';
import secureJson from 'secure-json-parse';
import { Ajv } from 'ajv';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { ApiDeps } from './deps.ts';
import errorsPlugin from './plugins/errors.ts';
import replicatedPlugin from './plugins/replicated.ts';
import authPlugin from './plugins/auth.ts';
import walletRoutes from './routes/wallet.ts';
import playerRoutes from './routes/player.ts';
import houseRoutes from './routes/house.ts';
import configRoutes from './routes/config.ts';
import devRoutes from './routes/dev.ts';
import diceRoutes from './routes/dice.ts';
import receiptRoutes from './routes/receipts.ts';
import webPlugin from './plugins/web.ts';
import healthPlugin from './plugins/health.ts';
import metricsPlugin from './plugins/metrics.ts';
import betLogRoutes from './routes/bet-log.ts';
import journalRoutes from './routes/journal.ts';
import stateProofRoutes from './routes/state-proof.ts';
import sweeperRoutes from './routes/sweeper.ts';
import transparencyRoutes from './routes/transparency.ts';
import agentKeyRoutes from './routes/agent-key.ts';
import mcpRoutes from './mcp/route.ts';
import activityStreamRoutes from './routes/activity-stream.ts';
import analyticsRoutes from './routes/analytics.ts';
import { PfwsError } from '../protocol/errors.ts';
import { trustProxyOf } from '../config/env.ts';
import { forDocument } from '../schemas/common.ts';
import { leasedBudgetStore } from './rate-limit-budget.ts';
import { RateLimitLeases } from '../store/rate-limit.ts';
import { capConnections, limitRequestTimes, serverLimits } from './http-limits.ts';

const API_DESCRIPTION = `The public API of the service (the contract in api-contract.md; formats in design.md).

**Trying it out.** Every route shows an example that is valid for its schema, so "Try it out" with it gets a real answer
from this service, never a validation error:
- Public routes (wallet, config, house, receipts, bet log, journal, trust root, activity, rankings, stats) answer with
  data, or with a meaningful 404 (RECEIPT_NOT_FOUND, NOT_FOUND) when the example names a play of another deployment;
  analytics answer 503 SERVICE_UNAVAILABLE while ClickHouse cannot (play goes on meanwhile). The verifiers' reads (the
  checkpoint, tiles, receipt bundles) answer NOT_FOUND until this deployment has anchored that much of its log; the
  checkpoint is \`text/plain\` (a C2SP signed note) and tiles are \`application/octet-stream\`.
- Routes marked with a lock need a bearer token: GET /api/wallet/challenge for your wallet, sign its \`message\` with the
  wallet (Ed25519, base64), POST /api/wallet/session, then **Authorize** with the token. With it, the examples answer as
  they would for that wallet: reads return its state; the play examples use a session key that your wallet has not
  authorized, so they answer SESSION_KEY_NOT_AUTHORIZED, GAME_INPUT_REJECTED (with \`details.reason\`) or
  INVALID_SESSION_SIGNATURE — what a real client gets for those inputs. To play for real, use a client that signs
  (test/helpers/player.ts is one in about 200 lines).
- Money, with a token: player/withdraw (its Idempotency-Key header filled in) and house/lp-redeem-transaction answer
  GAME_INPUT_REJECTED (\`insufficient_balance\`, \`insufficient_shares\`) until the wallet has a balance or LP shares;
  house/lp-deposit-transaction returns an unsigned transaction for the wallet to sign. player/x402-deposit with the
  example \`payment-signature\` (a payment made to the example deployment) answers 402 X402_PAYMENT_VERIFICATION_FAILED
  with a fresh offer in \`accepts\`; clear the header to get the plain 402 offer, pay accepts[0] with an x402 client and
  resend with its payload.
- Without a token those routes answer WALLET_SESSION_REQUIRED.
- GET /api/activity/stream is Server-Sent Events and never ends, so "Try it out" keeps waiting for it: read it with an
  EventSource or \`curl -N\`. Its events (\`snapshot\`, \`play\`) are described under \`x-pfws-events\` of its media type.

Not in this document: /api/mcp, the MCP endpoint for agents (Streamable HTTP: it answers JSON-RPC, not these REST
envelopes; same bearer token), and the operations routes GET /health, GET /ready and GET /metrics (Prometheus), at the
root of the server.`;

// Bodies are JSON and must carry the right types: coercing `true` into "true" would turn a malformed body
// into a different error. Query strings and path params are text, so they are coerced.
const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });
const textAjv = new Ajv({ coerceTypes: true, useDefaults: true, removeAdditional: false, allErrors: false, strict: false });

function frameworkError(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply) {
  const url = request.url.split('?')[0] ?? '';
  const notFound = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
  const code = notFound ? (url.startsWith('/api/receipts/') ? 'RECEIPT_NOT_FOUND' : 'NOT_FOUND') : 'INVALID_REQUEST';
  const status = notFound ? 404 : 400;
  void reply
    .code(status)
    .type('application/json')
    .send({ error: { code, message: notFound ? 'Not found' : 'Malformed URL' } });
}

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/**
 * Response serializers compiled once per schema, not once per route and status: every route lists the error envelope
 * for six statuses or more, and compiling each of them again cost an API process about a second of its start.
 */
export function sharedSerializers(): SerializerFactory {
  const build = SerializerSelector();
  return (externalSchemas, serializerOpts) => {
    const compile = build(externalSchemas, serializerOpts);
    const compiled = new WeakMap<object, ReturnType<typeof compile>>();
    return (route) => {
      if (typeof route.schema !== 'object' || route.schema === null) return compile(route);
      let serialize = compiled.get(route.schema);
      if (!serialize) {
        serialize = compile(route);
        compiled.set(route.schema, serialize);
      }
      return serialize;
    };
  };
}

export async function buildApp(deps: ApiDeps): Promise<FastifyInstance> {
  const app = Fastify({
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers() } },
    loggerInstance: deps.logger.child({ role: 'api' }) as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // Behind a proxy, its X-Forwarded-For names the client (rate limits); trusted only when configured.
    trustProxy: trustProxyOf(deps.config.TRUST_PROXY),
    routerOptions: { maxParamLength: 512 },
    frameworkErrors: frameworkError,
    ...serverLimits(deps.config),
  }).withTypeProvider<TypeBoxTypeProvider>();
  limitRequestTimes(app, deps.config);
  capConnections(app, deps.config);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema));

  // POSTs that take no body (sync) are often sent with a JSON content type and nothing in it.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(null, undefined);
    try {
      done(null, secureJson.parse(body as string, { protoAction: 'error', constructorAction: 'error' }));
    } catch (err) {
      done(Object.assign(err as Error, { statusCode: 400 }), undefined);
    }
  });
  // `?afterSeq=&limit=10` leaves afterSeq unset, as a form would: an empty query value means "not given".
  app.addHook('preValidation', async (request) => {
    const query = request.query as Record<string, unknown> | undefined;
    if (query) for (const [key, value] of Object.entries(query)) if (value === '') delete query[key];
  });
  await app.register(errorsPlugin);
  await app.register(replicatedPlugin, { replication: deps.replication });
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Provably-Fair Wagering Service (Protocol V1)', version: '1.0.0', description: API_DESCRIPTION },
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'The token of POST /api/wallet/session (GET /api/wallet/challenge, sign its message with the wallet)',
          },
        },
      },
    },
    // Permissive wire schemas (amounts the handler checks, objects built by protocol/) are shown as what they are.
    transform: ({ schema, url }) => ({ schema: forDocument(schema), url }),
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
  // The document under a name tools look for; /api/docs/json (Swagger UI's) serves the same.
  app.get('/api/docs/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  await app.register(authPlugin, { auth: deps.auth, clock: deps.clock, config: deps.config });
  await app.register(rateLimit, {
    max: deps.config.RATE_LIMIT_MAX,
    timeWindow: deps.config.RATE_LIMIT_WINDOW_MS,
    // One budget across API processes and hosts, counted here against slots leased from Redis in chunks
    // (api/rate-limit-budget.ts). A lease that fails while Redis is out gives the request 503
    // (api/plugins/errors.ts) rather than letting it pass uncounted.
    store: leasedBudgetStore(new RateLimitLeases(deps.rateLimitStore.redis, deps.rateLimitStore.nameSpace)),
    skipOnError: false,
    // A known token counts for its wallet; anything else (no token, or made-up ones) counts for the address.
    keyGenerator: (request) => deps.auth.knownWallet(request.headers.authorization) ?? request.ip,
    errorResponseBuilder: (_request, context) => new PfwsError('RATE_LIMITED', `Rate limit exceeded; retry in ${context.after}`),
  });
  await app.register(metricsPlugin, deps.ops);
  await app.register(healthPlugin, deps.ops);

  // Each route plugin gets only the parts it names (its options type is a Pick of ApiDeps).
  const { auth, challenges, clock, config, receipts, anchors, manifests, rng, lifecycle, dice, sweeper, player, house, withdrawals } = deps;
  const { topUps, chain, links, stateProofs, transparency, trustRoots, agentKeys, agents, activityStream, faucet, analytics, replication } = deps;
  await app.register(
    async (api) => {
      await api.register(walletRoutes, { config, auth, challenges, clock });
      await api.register(configRoutes, { chain, rng });
      await api.register(playerRoutes, { player, topUps, withdrawals });
      await api.register(houseRoutes, { house });
      await api.register(devRoutes, { faucet });
      await api.register(diceRoutes, { lifecycle, dice });
      await api.register(receiptRoutes, { receipts });
      await api.register(betLogRoutes, { anchors, links, chain });
      await api.register(journalRoutes, { manifests });
      await api.register(stateProofRoutes, { stateProofs });
      await api.register(sweeperRoutes, { lifecycle, sweeper });
      await api.register(transparencyRoutes, { transparency, trustRoots });
      await api.register(agentKeyRoutes, { agentKeys });
      await api.register(mcpRoutes, { agents, receipts, house, topUps, replication });
      await api.register(activityStreamRoutes, { activityStream });
      await api.register(analyticsRoutes, { analytics });
    },
    { prefix: '/api' },
  );
  await app.register(webPlugin);
  return app;
}
