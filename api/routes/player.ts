// Player setup and funding: unsigned setup/revoke transactions, sync from chain, and status (funding/player.ts).
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { responses } from '../../schemas/common.ts';
import { PlayerStatus, RevokeBody, SetupBody, SyncResult, UnsignedTransaction } from '../../schemas/player.ts';
import { playerStatus, revokeTransaction, setupTransaction, syncPlayer } from '../../funding/player.ts';

export default async function playerRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { player } = app;
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
}
