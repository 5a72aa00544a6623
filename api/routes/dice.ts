// Dice on Protocol V1: prepare, commit, reveal, session read and recovery seeds.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { responses } from '../../schemas/common.ts';
import { CommitResponse, RecoverySeed, RecoverySeedBody, RecoverySeedQuery, RecoverySeedStored, RevealBody } from '../../schemas/bets.ts';
import { DiceCommitBody, DicePrepareBody, DicePrepareResponse, DiceRevealResponse, DiceSession } from '../../schemas/dice.ts';
import { checkCommitBody, commitBet } from '../../games/bet-flow.ts';
import { diceSession, prepareDice, revealDice } from '../../games/dice.ts';
import { fetchRecoverySeed, storeRecoverySeed } from '../../games/recovery.ts';
import { gameRejected } from '../../schemas/errors.ts';

const ERRORS = [400, 401, 403, 404, 429, 500, 503];

export default async function diceRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = app;
  const route = { onRequest: app.requireWallet };
  const meta = { tags: ['dice'], security: [{ bearer: [] }] };

  app.post(
    '/protocol/v1/dice/prepare',
    { ...route, schema: { ...meta, summary: 'Step 1: build the canonical bet payload', body: DicePrepareBody, response: responses({ 200: DicePrepareResponse }, ERRORS) } },
    async (request) => prepareDice(services, request.wallet, request.body),
  );

  app.post(
    '/protocol/v1/dice/commit',
    { ...route, schema: { ...meta, summary: 'Step 2: lock the wager and get the signed ack', body: DiceCommitBody, response: responses({ 200: CommitResponse }, ERRORS) } },
    async (request) => {
      const { betPayload, betPayloadHash, sessionSignature, diceParams } = request.body;
      const payload = checkCommitBody(betPayload, betPayloadHash, sessionSignature, 'dice');
      if (diceParams && typeof diceParams === 'object' && payload.game === 'dice') {
        const { direction, targetBps } = diceParams as { direction?: unknown; targetBps?: unknown };
        if ((direction !== undefined && direction !== payload.params.direction) || (targetBps !== undefined && targetBps !== payload.params.targetBps)) {
          throw gameRejected('diceParams do not match betPayload.params', 'params_mismatch');
        }
      }
      const ack = await commitBet(services, request.wallet, betPayloadHash, sessionSignature);
      return { status: 'awaiting_reveal' as const, betPayloadHash, rngIndex: ack.rngIndex, ack, revealMessage: ack.revealMessage, revealDeadline: ack.revealDeadline };
    },
  );

  app.post(
    '/protocol/v1/dice/reveal',
    { ...route, schema: { ...meta, summary: 'Step 3: reveal the client seed and settle', body: RevealBody, response: responses({ 200: DiceRevealResponse }, ERRORS) } },
    async (request) => revealDice(services, request.wallet, request.body.betPayloadHash, request.body.clientSeedRaw.toLowerCase(), request.body.sessionSignature),
  );

  app.get(
    '/protocol/v1/dice/session',
    { ...route, schema: { ...meta, response: responses({ 200: DiceSession }, ERRORS) } },
    async (request) => diceSession(services, request.wallet),
  );

  app.post(
    '/protocol/v1/dice/recovery-seed',
    { ...route, schema: { ...meta, summary: 'Store the client seed after commit, for recovery', body: RecoverySeedBody, response: responses({ 200: RecoverySeedStored }, ERRORS) } },
    async (request) => storeRecoverySeed(services, request.wallet, request.body.betPayloadHash, request.body.clientSeedRaw.toLowerCase()),
  );

  app.get(
    '/protocol/v1/dice/recovery-seed',
    { ...route, schema: { ...meta, summary: 'Fetch a stored seed; only once the ack fixed the bet inputs', querystring: RecoverySeedQuery, response: responses({ 200: RecoverySeed }, ERRORS) } },
    async (request) => fetchRecoverySeed(services, request.wallet, request.query.betPayloadHash),
  );
}
