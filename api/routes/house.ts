// House state live from the vault and the ledger, and a wallet's LP position (house/view.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { responses } from '../../schemas/common.ts';
import { HouseResponse, PositionResponse } from '../../schemas/house.ts';
import { housePosition, houseView } from '../../house/view.ts';

export default async function houseRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { house } = app;

  app.get('/house', { schema: { tags: ['house'], response: responses({ 200: HouseResponse }) } }, async () => ({ house: await houseView(house) }));

  app.get(
    '/house/position',
    { onRequest: app.requireWallet, schema: { tags: ['house'], security: [{ bearer: [] }], response: responses({ 200: PositionResponse }) } },
    async (request) => ({ position: await housePosition(house, request.wallet) }),
  );
}
