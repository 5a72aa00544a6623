// Player setup, funding and status.
import { Type } from 'typebox';
import { Amount, AmountInput, Base58Address, Timestamp } from './common.ts';

export const SetupBody = Type.Object({
  amount: Type.Optional(AmountInput),
  sessionPubkey: Type.String({ description: 'Ed25519 session public key (base58)' }),
});

export const RevokeBody = Type.Object({
  sessionPubkey: Type.String({ description: 'Ed25519 session public key (base58)' }),
});

export const UnsignedTransaction = Type.Object({
  transaction: Type.String({ description: 'base64 wire transaction, unsigned; the wallet is the fee payer' }),
  lastValidBlockHeight: Type.String(),
  memo: Type.String(),
});

export const SessionKeyStatus = Type.Object({
  sessionPubkey: Base58Address,
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
  slot: Type.Integer(),
  signature: Type.String(),
  updatedAt: Timestamp,
});

/** Design §3: `{ id, amount, status, createdAt, signature?, finalizedAt? }`, plus the payout's explorer link. */
export const Withdrawal = Type.Object({
  id: Type.String({ description: 'wd_ and 26 base32 characters; the payout carries the memo pfws:v1:withdraw:<id>' }),
  amount: Amount,
  status: Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('finalized')]),
  createdAt: Timestamp,
  signature: Type.Optional(Type.String({ description: 'the payout transaction, once the keeper signed it' })),
  finalizedAt: Type.Optional(Timestamp),
  explorerUrl: Type.Optional(Type.String({ description: 'the payout transaction on the block explorer' })),
});

export const WithdrawBody = Type.Object({ amount: AmountInput });

export const WithdrawalResponse = Type.Object({ withdrawal: Withdrawal });

export const PlayerStatus = Type.Object({
  walletAddress: Base58Address,
  alias: Type.String(),
  balance: Amount,
  exposure: Amount,
  stakedInPlay: Amount,
  pendingWithdrawals: Amount,
  nonces: Type.Object({ bet: Type.Integer({ description: 'the betNonce the next prepared bet carries' }) }),
  sessionKeys: Type.Array(SessionKeyStatus),
  withdrawals: Type.Array(Withdrawal),
  totals: Type.Object({ deposited: Amount, wagered: Amount, paidOut: Amount, plays: Type.Integer(), wins: Type.Integer() }),
});

export const SyncResult = Type.Object({ applied: Type.Integer({ description: 'on-chain items applied by this call' }), status: PlayerStatus });

export const FaucetBody = Type.Object({
  wallet: Type.String(),
  usdc: Type.Optional(AmountInput),
  sol: Type.Optional(Type.Number({ minimum: 0, maximum: 1000 })),
});

export const FaucetResult = Type.Object({
  wallet: Base58Address,
  tokenAccount: Base58Address,
  usdc: Amount,
  sol: Type.Number(),
  signatures: Type.Array(Type.String()),
});

/** `POST /api/protocol/v1/player/x402-deposit`: the amount as in the setup body. */
export const TopUpBody = Type.Object({ amount: AmountInput });

export const TopUpResult = Type.Object({
  payment: Type.Object({ id: Type.String({ description: 'the settled transaction signature' }), amount: Amount }),
  balance: Amount,
});
