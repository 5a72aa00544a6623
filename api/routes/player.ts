// Player setup and funding: unsigned setup/revoke transactions, sync from chain, and status.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { address } from '@solana/kit';
import { ApiError } from '../../schemas/errors.ts';
import { responses } from '../../schemas/common.ts';
import { PlayerStatus, RevokeBody, SetupBody, SyncResult, UnsignedTransaction } from '../../schemas/player.ts';
import { buildRevokeTransaction, buildSetupTransaction } from '../../chain/player-transactions.ts';
import { AmountError, microToNumber, parseNonNegativeAmount } from '../../protocol/money.ts';
import { isStrictEd25519PublicKey } from '../../protocol/crypto.ts';
import { fromBase58 } from '../../protocol/encoding.ts';
import { revokeMemo, setupMemo } from '../../protocol/memo.ts';
import { tailAddress, watchWallet } from '../../indexer/tail.ts';
import type { Services } from '../../services.ts';
import type { TailDeps } from '../../indexer/tail.ts';

/** A session key must be a valid, non-small-order Ed25519 point. */
export function assertSessionPubkey(value: string): void {
  let ok = false;
  try {
    ok = isStrictEd25519PublicKey(fromBase58(value, 32));
  } catch {
    ok = false;
  }
  if (!ok) throw new ApiError('INVALID_REQUEST', 'sessionPubkey must be a base58 Ed25519 public key that is not of small order');
}

export async function playerStatus(services: Services, wallet: string) {
  const [player, keys] = await Promise.all([services.ledger.player(wallet), services.ledger.sessionKeys(wallet)]);
  return {
    walletAddress: wallet,
    alias: services.aliases.of(wallet),
    balance: microToNumber(player.balance),
    exposure: microToNumber(player.exposure),
    stakedInPlay: microToNumber(player.staked),
    pendingWithdrawals: microToNumber(player.pendingWithdrawals),
    nonces: { bet: player.nonce },
    sessionKeys: Object.entries(keys).map(([sessionPubkey, k]) => ({
      sessionPubkey,
      status: k.status,
      slot: k.slot,
      signature: k.signature,
      updatedAt: k.at,
    })),
    withdrawals: [],
    totals: {
      deposited: microToNumber(player.deposited),
      wagered: microToNumber(player.wagered),
      paidOut: microToNumber(player.paidOut),
      plays: player.plays,
      wins: player.wins,
    },
  };
}

export default async function playerRoutes(fastify: FastifyInstance, options: { tail: TailDeps }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = app;
  const bearer = { onRequest: app.requireWallet };
  const security = [{ bearer: [] }];

  app.get(
    '/protocol/v1/player/status',
    { ...bearer, schema: { tags: ['player'], security, response: responses({ 200: PlayerStatus }) } },
    async (request) => playerStatus(services, request.wallet),
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
    async (request) => {
      let amount: bigint;
      try {
        amount = request.body.amount === undefined ? 0n : parseNonNegativeAmount(request.body.amount);
      } catch (err) {
        if (err instanceof AmountError) throw new ApiError('INVALID_BET_AMOUNT', `amount: ${err.message}`);
        throw err;
      }
      assertSessionPubkey(request.body.sessionPubkey);
      const wallet = address(request.wallet);
      const built = await buildSetupTransaction(services.rpc, services.setup, wallet, request.body.sessionPubkey, amount);
      await watchWallet(options.tail, request.wallet);
      return { ...built, lastValidBlockHeight: built.lastValidBlockHeight.toString(), memo: setupMemo(wallet, request.body.sessionPubkey) };
    },
  );

  app.post(
    '/protocol/v1/player/revoke-session-key-transaction',
    { ...bearer, schema: { tags: ['player'], security, body: RevokeBody, response: responses({ 200: UnsignedTransaction }) } },
    async (request) => {
      assertSessionPubkey(request.body.sessionPubkey);
      const wallet = address(request.wallet);
      const built = await buildRevokeTransaction(services.rpc, wallet, request.body.sessionPubkey);
      await watchWallet(options.tail, request.wallet);
      return { ...built, lastValidBlockHeight: built.lastValidBlockHeight.toString(), memo: revokeMemo(wallet, request.body.sessionPubkey) };
    },
  );

  app.post(
    '/protocol/v1/player/sync',
    { ...bearer, schema: { tags: ['player'], summary: 'Apply the wallet\'s confirmed transactions now', security, response: responses({ 200: SyncResult }) } },
    async (request) => {
      const applied = await tailAddress(options.tail, request.wallet);
      return { applied, status: await playerStatus(services, request.wallet) };
    },
  );
}
