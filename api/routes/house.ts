// House state live from the vault (RPC) and the ledger, and a wallet's LP position.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { fetchMint } from '@solana-program/token';
import { address } from '@solana/kit';
import { responses } from '../../schemas/common.ts';
import { HouseResponse, PositionResponse } from '../../schemas/house.ts';
import { limitsOf, type LimitSettings } from '../../store/ledger.ts';
import { microToNumber } from '../../protocol/money.ts';
import { ataOf } from '../../chain/genesis.ts';
import type { Services } from '../../services.ts';

const YEAR_MS = 365 * 86_400_000;

export const limitSettings = (services: Services): LimitSettings => ({
  maxBetBps: services.config.MAX_BET_BPS,
  maxPayoutBps: services.config.MAX_PAYOUT_BPS,
  maxExposureBps: services.config.MAX_EXPOSURE_BPS,
});

async function liveVault(services: Services): Promise<bigint> {
  const { value } = await services.rpc.getTokenAccountBalance(services.setup.vaultTokenAccount).send();
  return BigInt(value.amount);
}

/** NAV per share, as a ratio of integers (both have 6 decimals). */
async function lpState(services: Services, nav: bigint) {
  const mint = await fetchMint(services.rpc, services.setup.lpMint);
  const supply = mint.data.supply;
  return { supply, sharePrice: supply > 0n ? Number(nav) / Number(supply) : 0 };
}

export async function houseView(services: Services) {
  const [totals, vault, startedAt] = await Promise.all([
    services.ledger.house(),
    liveVault(services),
    services.redis.hget(services.keys.meta(), 'startedAt'),
  ]);
  const limits = limitsOf(totals, limitSettings(services), vault);
  const nav = limits.nav;
  const { sharePrice } = await lpState(services, nav);
  const elapsed = services.now().getTime() - Number(startedAt ?? services.now().getTime());
  const apr = totals.capital > 0n && elapsed > 0 ? (Number(totals.gameNet) / Number(totals.capital)) * (YEAR_MS / elapsed) : 0;
  const idle = nav > 0n ? nav : 0n;
  return {
    totalValue: microToNumber(nav),
    baseBankroll: microToNumber(totals.capital),
    gameNet: microToNumber(totals.gameNet),
    volume: microToNumber(totals.volume),
    apr,
    maxExposure: microToNumber(limits.maxExposure),
    utilization: limits.maxExposure > 0n ? Number(totals.exposure) / Number(limits.maxExposure) : 0,
    totalStaked: microToNumber(totals.staked),
    sharePrice,
    activeReserve: microToNumber(totals.staked + totals.exposure),
    idleReserve: microToNumber(idle),
    deployableToYield: 0,
    maxBet: microToNumber(limits.maxBet),
    maxPayout: microToNumber(limits.maxPayout),
    openExposure: microToNumber(totals.exposure),
    strategy: 'cash',
  };
}

export default async function houseRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { services } = app;

  app.get('/house', { schema: { tags: ['house'], response: responses({ 200: HouseResponse }) } }, async () => ({ house: await houseView(services) }));

  app.get(
    '/house/position',
    { onRequest: app.requireWallet, schema: { tags: ['house'], security: [{ bearer: [] }], response: responses({ 200: PositionResponse }) } },
    async (request) => {
      const lpAccount = await ataOf(address(request.wallet), services.setup.lpMint);
      const [account, totals, vault] = await Promise.all([
        services.rpc.getTokenAccountBalance(lpAccount).send().then((r) => BigInt(r.value.amount)).catch(() => 0n),
        services.ledger.house(),
        liveVault(services),
      ]);
      const nav = limitsOf(totals, limitSettings(services), vault).nav;
      const { supply, sharePrice } = await lpState(services, nav);
      // LP deposits are not credited as principal yet (design §3 LP flows are future work), so principal is 0.
      const currentValue = account > 0n ? (Number(account) / 1e6) * sharePrice : 0;
      return {
        position: {
          shares: microToNumber(account),
          principal: 0,
          currentValue,
          profit: currentValue,
          ownership: supply > 0n ? Number(account) / Number(supply) : 0,
        },
      };
    },
  );
}
