// Dice on Protocol V1: prepare, commit, reveal, session read and recovery seeds.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { responses } from '../../schemas/common.ts';
import { CommitResponse, RecoverySeed, RecoverySeedBody, RecoverySeedQuery, RecoverySeedStored, RevealBody } from '../../schemas/bets.ts';
import { DiceCommitBody, DicePrepareBody, DicePrepareResponse, DiceRevealResponse, DiceSession } from '../../schemas/dice.ts';
import type { ApiDeps } from '../deps.ts';

const ERRORS = [400, 401, 403, 404, 429, 500, 503];

/** The parts these routes use. */
export type DiceRouteDeps = Pick<ApiDeps, 'lifecycle' | 'dice'>;

export default async function diceRoutes(fastify: FastifyInstance, { lifecycle, dice }: DiceRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const route = { onRequest: app.requireWallet };
  const meta = { tags: ['dice'], security: [{ bearer: [] }] };

  app.post(
    '/protocol/v1/dice/prepare',
    {
      ...route,
      schema: { ...meta, summary: 'Step 1: build the canonical bet payload', body: DicePrepareBody, response: responses({ 200: DicePrepareResponse }, ERRORS) },
    },
    async (request) => lifecycle.prepare('dice', request.wallet, request.body, 'api'),
  );

  app.post(
    '/protocol/v1/dice/commit',
    {
      ...route,
      schema: { ...meta, summary: 'Step 2: lock the wager and get the signed ack', body: DiceCommitBody, response: responses({ 200: CommitResponse }, ERRORS) },
    },
    async (request) => lifecycle.commit('dice', request.wallet, request.body, 'api'),
  );

  app.post(
    '/protocol/v1/dice/reveal',
    {
      ...route,
      schema: { ...meta, summary: 'Step 3: reveal the client seed and settle', body: RevealBody, response: responses({ 200: DiceRevealResponse }, ERRORS) },
    },
    async (request) =>
      lifecycle.reveal('dice', request.wallet, request.body.betPayloadHash, request.body.clientSeedRaw.toLowerCase(), request.body.sessionSignature),
  );

  app.get('/protocol/v1/dice/session', { ...route, schema: { ...meta, response: responses({ 200: DiceSession }, ERRORS) } }, async (request) =>
    dice.session(request.wallet),
  );

  app.post(
    '/protocol/v1/dice/recovery-seed',
    {
      ...route,
      schema: {
        ...meta,
        summary: 'Store the client seed after commit, for recovery',
        body: RecoverySeedBody,
        response: responses({ 200: RecoverySeedStored }, ERRORS),
      },
    },
    async (request) => lifecycle.storeRecoverySeed(request.wallet, request.body.betPayloadHash, request.body.clientSeedRaw.toLowerCase()),
  );

  app.get(
    '/protocol/v1/dice/recovery-seed',
    {
      ...route,
      schema: {
        ...meta,
        summary: 'Fetch a stored seed; only once the ack fixed the bet inputs',
        querystring: RecoverySeedQuery,
        response: responses({ 200: RecoverySeed }, ERRORS),
      },
    },
    async (request) => lifecycle.fetchRecoverySeed(request.wallet, request.query.betPayloadHash),
  );
}
