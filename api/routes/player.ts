// Player setup and funding: unsigned setup/revoke transactions, sync from chain, status (funding/player.ts), x402
// top-ups (payments/top-up.ts) and withdrawals (funding/withdrawals.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { PaymentRequiredEnvelope, responses } from '../../schemas/common.ts';
import {
  PlayerStatus,
  RevokeBody,
  SetupBody,
  SyncResult,
  TopUpBody,
  TopUpHeaders,
  TopUpResult,
  UnsignedTransaction,
  WithdrawalResponse,
  WithdrawBody,
  WithdrawHeaders,
} from '../../schemas/player.ts';
import { playerStatus, revokeTransaction, setupTransaction, syncPlayer } from '../../funding/player.ts';
import { requestWithdrawal } from '../../funding/withdrawals.ts';
import { parseTopUpAmount, paymentRequiredError } from '../../payments/top-up.ts';
import type { ApiDeps } from '../deps.ts';

/** The parts these routes use. */
export type PlayerRouteDeps = Pick<ApiDeps, 'player' | 'topUps' | 'withdrawals'>;

export default async function playerRoutes(fastify: FastifyInstance, { player, topUps, withdrawals }: PlayerRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const bearer = { onRequest: app.requireWallet };
  const security = [{ bearer: [] }];

  app.get('/protocol/v1/player/status', { ...bearer, schema: { tags: ['player'], security, response: responses({ 200: PlayerStatus }) } }, async (request) =>
    playerStatus(player, request.wallet),
  );

  app.post(
    '/protocol/v1/player/setup-transaction',
    {
      ...bearer,
      schema: {
        tags: ['player'],
        summary: 'Unsigned transaction: authorize a session key and optionally deposit',
        security,
        body: SetupBody,
        response: responses({ 200: UnsignedTransaction }),
      },
    },
    async (request) => setupTransaction(player, request.wallet, request.body),
  );

  app.post(
    '/protocol/v1/player/revoke-session-key-transaction',
    { ...bearer, schema: { tags: ['player'], security, body: RevokeBody, response: responses({ 200: UnsignedTransaction }) } },
    async (request) => revokeTransaction(player, request.wallet, request.body.sessionPubkey),
  );

  app.post(
    '/protocol/v1/player/sync',
    { ...bearer, schema: { tags: ['player'], summary: "Apply the wallet's confirmed transactions now", security, response: responses({ 200: SyncResult }) } },
    async (request) => syncPlayer(player, request.wallet),
  );

  app.post(
    '/protocol/v1/player/x402-deposit',
    {
      ...bearer,
      config: { validationCode: 'INVALID_BET_AMOUNT' },
      schema: {
        tags: ['player'],
        summary: 'Top up the balance with an x402 payment (header payment-signature); without one, 402 with accepts',
        security,
        body: TopUpBody,
        headers: TopUpHeaders,
        response: responses({ 200: TopUpResult, 402: PaymentRequiredEnvelope }, [400, 401, 403, 404, 429, 500, 503]),
      },
    },
    async (request) => {
      const amount = parseTopUpAmount(request.body.amount);
      const payment = request.headers['payment-signature'];
      if (typeof payment !== 'string' || payment.trim() === '') throw paymentRequiredError(await topUps.offer(request.wallet, amount));
      return topUps.pay(request.wallet, amount, payment);
    },
  );

  app.post(
    '/protocol/v1/player/withdraw',
    {
      ...bearer,
      config: { validationCode: 'INVALID_BET_AMOUNT' },
      schema: {
        tags: ['player'],
        summary:
          "Withdraw to the wallet's own USDC account, which must exist (at least MIN_WITHDRAWAL_USDC; Idempotency-Key header: the same key and amount return the same withdrawal)",
        security,
        body: WithdrawBody,
        headers: WithdrawHeaders,
        response: responses({ 200: WithdrawalResponse }),
      },
    },
    async (request) => {
      const key = request.headers['idempotency-key'];
      return requestWithdrawal(withdrawals, request.wallet, request.body.amount, typeof key === 'string' ? key : undefined);
    },
  );
}
