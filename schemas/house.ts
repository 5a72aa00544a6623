// The house object (contract "House state"), an LP position, and the LP deposit and redemption transactions.
import { Type } from 'typebox';
import { AmountInput, PositiveDecimalInput } from './common.ts';
import { unsignedTransaction } from './player.ts';
import * as EX from './examples.ts';

const N = (description: string) => Type.Number({ description });

export const House = Type.Object(
  {
    totalValue: N('NAV = vault_usdc - total_locked (what is owed to players and depositors; open exposure is not in it)'),
    baseBankroll: N('house capital contributed (genesis and minted LP deposits)'),
    gameNet: N('sum of settled wagers minus payouts'),
    volume: N('sum of settled wagers'),
    apr: N('gameNet / baseBankroll, annualized since the first play'),
    maxExposure: N('maxExposure limit (fraction of NAV)'),
    utilization: N('openExposure / maxExposure'),
    totalStaked: N('stakes in play'),
    sharePrice: N('NAV per LP share'),
    activeReserve: N('stakes in play plus payouts banked on open tickets plus open exposure: funds backing live play'),
    idleReserve: N('NAV not at risk in open bets'),
    deployableToYield: N('0: the cash strategy deploys nothing'),
    maxBet: N('current maximum bet'),
    maxPayout: N('current maximum payout'),
    openExposure: N('sum of (max payout - what is already owed) over committed bets and Sweeper turns in flight'),
    strategy: Type.String({ description: 'cash' }),
  },
  { description: 'the house, live from the vault and the ledger (USDC)' },
);

export const HouseResponse = Type.Object({ house: House }, { description: 'The house', examples: [EX.house] });

export const Position = Type.Object(
  {
    shares: N('LP shares held'),
    principal: N('USDC deposited minus the principal share of redemptions'),
    currentValue: N('shares × sharePrice'),
    profit: N('currentValue − principal'),
    ownership: N('shares / supply'),
  },
  { description: "the wallet's LP position" },
);

export const PositionResponse = Type.Object(
  { position: Position },
  { description: 'The position (all zeros for a wallet that never provided liquidity)', examples: [EX.position, EX.lpPosition] },
);

export const LpDepositBody = Type.Object({ amount: AmountInput }, { description: 'USDC to deposit for LP shares', examples: [EX.lpDepositBody] });
export const LpRedeemBody = Type.Object(
  {
    shares: PositiveDecimalInput(
      'positive LP shares to redeem (6 decimals, like USDC), a JSON number or a decimal string, at most what the wallet holds; anything else is INVALID_REQUEST',
    ),
  },
  { description: 'LP shares to redeem', examples: [EX.lpRedeemBody] },
);

export const LpDepositTransaction = unsignedTransaction(
  'pfws:v1:lp-deposit:<wallet>, signed by the wallet alone',
  'Sign it with the wallet and send it to the RPC: the indexer reads the deposit and the keeper mints the LP shares at NAV (see /api/house/position)',
  EX.lpDepositTransaction,
);
export const LpRedeemTransaction = unsignedTransaction(
  'pfws:v1:lp-redeem:<wallet>, signed by the wallet alone',
  "Sign it with the wallet and send it to the RPC: the shares go to the keeper's LP account and the keeper pays USDC at NAV per share, in arrival order",
  EX.lpRedeemTransaction,
);
