// The house object (contract "House state") and an LP position.
import { Type } from 'typebox';
import { AmountInput } from './common.ts';

const N = (description: string) => Type.Number({ description });

export const House = Type.Object({
  totalValue: N('NAV = vault_usdc - total_locked'),
  baseBankroll: N('house capital contributed (genesis and minted LP deposits)'),
  gameNet: N('sum of settled wagers minus payouts'),
  volume: N('sum of settled wagers'),
  apr: N('gameNet / baseBankroll, annualized since the first play'),
  maxExposure: N('maxExposure limit (fraction of NAV)'),
  utilization: N('openExposure / maxExposure'),
  totalStaked: N('stakes in play'),
  sharePrice: N('NAV per LP share'),
  activeReserve: N('stakes in play plus open exposure: funds backing live bets'),
  idleReserve: N('NAV not at risk in open bets'),
  deployableToYield: N('0: the cash strategy deploys nothing'),
  maxBet: N('current maximum bet'),
  maxPayout: N('current maximum payout'),
  openExposure: N('sum of (max payout - stake) over committed bets and open tickets'),
  strategy: Type.String(),
});

export const HouseResponse = Type.Object({ house: House });

export const Position = Type.Object({
  shares: Type.Number(),
  principal: Type.Number(),
  currentValue: Type.Number(),
  profit: Type.Number(),
  ownership: Type.Number(),
});

export const PositionResponse = Type.Object({ position: Position });

export const LpDepositBody = Type.Object({ amount: AmountInput });
export const LpRedeemBody = Type.Object({
  shares: Type.Unknown({ description: 'positive LP shares (6 decimals, like USDC), a JSON number or a decimal string' }),
});
