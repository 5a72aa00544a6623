// House state live from the vault and the ledger, a wallet's LP position (house/view.ts), and the wallet's unsigned
// LP deposit and redemption transactions (house/lp.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { responses } from '../../schemas/common.ts';
import { HouseResponse, LpDepositBody, LpDepositTransaction, LpRedeemBody, LpRedeemTransaction, PositionResponse } from '../../schemas/house.ts';
import { housePosition, houseView } from '../../house/view.ts';
import { lpDepositTransaction, lpRedeemTransaction } from '../../house/lp.ts';
import type { ApiDeps } from '../deps.ts';

/** The parts these routes use. */
export type HouseRouteDeps = Pick<ApiDeps, 'house'>;

export default async function houseRoutes(fastify: FastifyInstance, { house }: HouseRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get('/house', { schema: { tags: ['house'], response: responses({ 200: HouseResponse }) } }, async () => ({ house: await houseView(house) }));

  app.get(
    '/house/position',
    { onRequest: app.requireWallet, schema: { tags: ['house'], security: [{ bearer: [] }], response: responses({ 200: PositionResponse }) } },
    async (request) => ({ position: await housePosition(house, request.wallet) }),
  );

  const bearer = { onRequest: app.requireWallet };
  const security = [{ bearer: [] }];

  app.post(
    '/protocol/v1/house/lp-deposit-transaction',
    {
      ...bearer,
      config: { validationCode: 'INVALID_BET_AMOUNT' },
      schema: {
        tags: ['house'],
        summary: 'Unsigned transaction: USDC to the vault with pfws:v1:lp-deposit; the keeper mints LP shares at NAV',
        security,
        body: LpDepositBody,
        response: responses({ 200: LpDepositTransaction }),
      },
    },
    async (request) => lpDepositTransaction(house, request.wallet, request.body.amount),
  );

  app.post(
    '/protocol/v1/house/lp-redeem-transaction',
    {
      ...bearer,
      schema: {
        tags: ['house'],
        summary: 'Unsigned transaction: LP shares to the keeper with pfws:v1:lp-redeem; the keeper pays USDC at NAV per share',
        security,
        body: LpRedeemBody,
        response: responses({ 200: LpRedeemTransaction }),
      },
    },
    async (request) => lpRedeemTransaction(house, request.wallet, request.body.shares),
  );
}
