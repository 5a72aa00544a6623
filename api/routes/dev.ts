// Dev faucet: registered only when the chain is the embedded localnet.
import { isChainUnavailable } from '../../chain/rpc.ts';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { isAddress } from '../../protocol/address.ts';
import { PfwsError } from '../../protocol/errors.ts';
import { responses } from '../../schemas/common.ts';
import { FaucetBody, FaucetResult } from '../../schemas/player.ts';
import { AmountError, microToNumber, parseNonNegativeAmount } from '../../protocol/money.ts';
import { fundFromFaucet } from '../../chain/genesis.ts';
import type { ApiDeps } from '../deps.ts';

const MAX_FAUCET_USDC = 1_000_000_000_000n;

/** The parts these routes use. */
export type DevRouteDeps = Pick<ApiDeps, 'faucet'>;

export default async function devRoutes(fastify: FastifyInstance, { faucet }: DevRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  if (!faucet) return;

  app.post(
    '/dev/faucet',
    { schema: { tags: ['dev'], summary: 'localnet only: airdrop SOL and mint dev USDC', body: FaucetBody, response: responses({ 200: FaucetResult }) } },
    async (request) => {
      const { wallet } = request.body;
      if (!isAddress(wallet)) throw new PfwsError('INVALID_WALLET_ADDRESS', 'wallet is not a valid Solana public key');
      let usdc: bigint;
      try {
        usdc = parseNonNegativeAmount(request.body.usdc ?? 1000);
      } catch (err) {
        if (err instanceof AmountError) throw new PfwsError('INVALID_REQUEST', `usdc: ${err.message}`);
        throw err;
      }
      if (usdc > MAX_FAUCET_USDC) throw new PfwsError('INVALID_REQUEST', 'usdc: at most 1,000,000 per request');
      const sol = request.body.sol ?? 1;
      // Below the rent-exempt minimum a new account cannot exist, so the airdrop would fail on-chain.
      if (sol !== 0 && sol < 0.001) throw new PfwsError('INVALID_REQUEST', 'sol: 0, or at least 0.001');
      let result: Awaited<ReturnType<typeof fundFromFaucet>>;
      try {
        result = await fundFromFaucet(faucet.rpc, faucet.setup, faucet.key, wallet, usdc, BigInt(Math.round(sol * 1e9)));
      } catch (err) {
        // An RPC that did not answer is a 503 (retry), not the chain refusing the request.
        if (isChainUnavailable(err)) throw err;
        request.log.warn({ err }, 'faucet: the chain refused the request');
        throw new PfwsError('INVALID_REQUEST', 'The chain refused this faucet request');
      }
      return { wallet, tokenAccount: result.tokenAccount, usdc: microToNumber(usdc), sol, signatures: result.signatures };
    },
  );
}
