// Sweeper on Protocol V1: tickets, then choice and cashout turns (prepare, commit, reveal).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { responses } from '../../schemas/common.ts';
import { RecoverySeed, RecoverySeedBody, RecoverySeedQuery, RecoverySeedStored, RevealBody } from '../../schemas/bets.ts';
import {
  CashoutPrepareBody,
  ChoicePrepareBody,
  OpenTicketBody,
  OpenTicketResponse,
  SweeperCommitBody,
  SweeperCommitResponse,
  SweeperPrepareResponse,
  SweeperRevealResponse,
  SweeperSession,
  TicketParams,
  TicketResponse,
} from '../../schemas/sweeper.ts';
import type { ApiDeps } from '../deps.ts';

const ERRORS = [400, 401, 403, 404, 429, 500, 503];

/** The parts these routes use. */
export type SweeperRouteDeps = Pick<ApiDeps, 'lifecycle' | 'sweeper'>;

export default async function sweeperRoutes(fastify: FastifyInstance, { lifecycle, sweeper }: SweeperRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const route = { onRequest: app.requireWallet };
  const meta = { tags: ['sweeper'], security: [{ bearer: [] }] };

  app.get('/protocol/v1/sweeper/session', { ...route, schema: { ...meta, response: responses({ 200: SweeperSession }, ERRORS) } }, async (request) =>
    sweeper.session(request.wallet),
  );

  app.post(
    '/protocol/v1/sweeper/ticket',
    {
      ...route,
      schema: { ...meta, summary: 'Open a ticket and reserve the stake', body: OpenTicketBody, response: responses({ 200: OpenTicketResponse }, ERRORS) },
    },
    async (request) => sweeper.openTicket(lifecycle, request.wallet, request.body, 'api'),
  );

  app.get(
    '/protocol/v1/sweeper/ticket/:ticketId',
    { ...route, schema: { ...meta, params: TicketParams, response: responses({ 200: TicketResponse }, ERRORS) } },
    async (request) => sweeper.ticket(request.wallet, request.params.ticketId),
  );

  app.post(
    '/protocol/v1/sweeper/choice/prepare',
    { ...route, schema: { ...meta, summary: 'Choice turn, step 1', body: ChoicePrepareBody, response: responses({ 200: SweeperPrepareResponse }, ERRORS) } },
    async (request) => lifecycle.prepare('sweeper', request.wallet, Object.assign({}, request.body, { turn: 'choice' as const }), 'api'),
  );

  app.post(
    '/protocol/v1/sweeper/cashout/prepare',
    { ...route, schema: { ...meta, summary: 'Cashout turn, step 1', body: CashoutPrepareBody, response: responses({ 200: SweeperPrepareResponse }, ERRORS) } },
    async (request) => lifecycle.prepare('sweeper', request.wallet, Object.assign({}, request.body, { turn: 'cashout' as const }), 'api'),
  );

  app.post(
    '/protocol/v1/sweeper/commit',
    { ...route, schema: { ...meta, summary: 'Step 2 of a turn', body: SweeperCommitBody, response: responses({ 200: SweeperCommitResponse }, ERRORS) } },
    async (request) => lifecycle.commit('sweeper', request.wallet, request.body, 'api'),
  );

  app.post(
    '/protocol/v1/sweeper/reveal',
    { ...route, schema: { ...meta, summary: 'Step 3 of a turn', body: RevealBody, response: responses({ 200: SweeperRevealResponse }, ERRORS) } },
    async (request) =>
      lifecycle.reveal('sweeper', request.wallet, request.body.betPayloadHash, request.body.clientSeedRaw.toLowerCase(), request.body.sessionSignature),
  );

  // The same recovery-seed store as Dice, under the Sweeper path too.
  app.post(
    '/protocol/v1/sweeper/recovery-seed',
    { ...route, schema: { ...meta, body: RecoverySeedBody, response: responses({ 200: RecoverySeedStored }, ERRORS) } },
    async (request) => lifecycle.storeRecoverySeed(request.wallet, request.body.betPayloadHash, request.body.clientSeedRaw.toLowerCase()),
  );
  app.get(
    '/protocol/v1/sweeper/recovery-seed',
    { ...route, schema: { ...meta, querystring: RecoverySeedQuery, response: responses({ 200: RecoverySeed }, ERRORS) } },
    async (request) => lifecycle.fetchRecoverySeed(request.wallet, request.query.betPayloadHash),
  );
}
