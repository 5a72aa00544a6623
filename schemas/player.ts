// Player setup, funding and status.
import { Type } from 'typebox';
import { Amount, AmountInput, Base58Address, documented, OptionalAmountInput, Timestamp } from './common.ts';
import * as EX from './examples.ts';

export const SetupBody = Type.Object(
  {
    amount: Type.Optional(
      OptionalAmountInput('USDC to deposit in the same transaction (0 or absent: only authorize the key); at most what the wallet holds, at most 6 decimals'),
    ),
    sessionPubkey: Type.String({ description: 'Ed25519 session public key (base58) to authorize' }),
  },
  { examples: [EX.setupBody] },
);

export const RevokeBody = Type.Object(
  { sessionPubkey: Type.String({ description: 'Ed25519 session public key (base58) to revoke' }) },
  { examples: [EX.revokeBody] },
);

/** An unsigned transaction for the wallet to sign and send; `memo` and the example differ per route. */
export const unsignedTransaction = (memo: string, description: string, example: unknown) =>
  Type.Object(
    {
      transaction: Type.String({ description: 'base64 wire transaction, unsigned; the wallet is the fee payer' }),
      lastValidBlockHeight: Type.String({ description: 'the transaction is valid until this block height (decimal string)' }),
      memo: Type.String({ description: memo }),
    },
    { description, examples: [example] },
  );

export const UnsignedTransaction = unsignedTransaction(
  'the memo it carries, signed by the wallet alone',
  'Sign it with the wallet, send it to the RPC, then call player/sync',
  EX.unsignedTransaction,
);

export const SessionKeyStatus = Type.Object(
  {
    sessionPubkey: { ...Base58Address, description: 'the session key' },
    status: Type.Union([Type.Literal('active'), Type.Literal('revoked')], { description: 'active, or revoked' }),
    slot: Type.Integer({ description: 'slot of the memo that set this status' }),
    signature: Type.String({ description: 'transaction of that memo' }),
    updatedAt: { ...Timestamp, description: 'when the service applied it' },
  },
  { description: 'one session key' },
);

/** Design §3: `{ id, amount, status, createdAt, signature?, finalizedAt? }`, plus the payout's explorer link and, for a withdrawal returned to the balance, when and why. */
export const Withdrawal = Type.Object(
  {
    id: Type.String({ description: 'wd_ and 26 base32 characters; the payout carries the memo pfws:v1:withdraw:<id>' }),
    amount: { ...Amount, description: 'the amount, USDC' },
    status: Type.Union([Type.Literal('pending'), Type.Literal('sent'), Type.Literal('finalized'), Type.Literal('returned')], {
      description:
        'pending, then sent, then finalized; or returned: the wallet had no USDC account to pay into when the keeper came to it (the keeper never pays its rent), so the amount went back to the balance',
    }),
    createdAt: { ...Timestamp, description: 'when requested' },
    signature: Type.Optional(Type.String({ description: 'the payout transaction, once the keeper signed it' })),
    finalizedAt: Type.Optional({ ...Timestamp, description: 'when the payout was final on-chain' }),
    returnedAt: Type.Optional({ ...Timestamp, description: 'when a returned withdrawal went back to the balance' }),
    returnReason: Type.Optional(
      Type.Union([Type.Literal('no_token_account'), Type.Literal('token_account_frozen')], {
        description: "why it was returned: the wallet's USDC account did not exist, or was frozen",
      }),
    ),
    explorerUrl: Type.Optional(Type.String({ description: 'the payout transaction on the block explorer' })),
  },
  { description: 'one withdrawal' },
);

export const WithdrawBody = Type.Object({ amount: AmountInput }, { description: 'how much to withdraw', examples: [EX.withdrawBody] });

const IDEMPOTENCY_KEY =
  'Idempotency-Key: 1 to 255 printable ASCII characters (a UUID, say). The same key with the same amount returns the same withdrawal (per wallet); with another amount it is INVALID_REQUEST (details.reason "idempotency_key_reused") and nothing moves; without one, every request is a new withdrawal. A malformed key is INVALID_REQUEST.';

/** The handler checks the key, so a malformed one gets INVALID_REQUEST rather than the route's amount code. */
export const WithdrawHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    documented(
      Type.String({ description: IDEMPOTENCY_KEY }),
      Type.String({ pattern: '^[\\x21-\\x7e]{1,255}$', description: IDEMPOTENCY_KEY, examples: [EX.idempotencyKey] }),
    ),
  ),
});

export const WithdrawalResponse = Type.Object(
  { withdrawal: Withdrawal },
  { description: 'The withdrawal, pending until the keeper pays it (player/status lists it as it moves on)', examples: [EX.withdrawal] },
);

export const PlayerStatus = Type.Object(
  {
    walletAddress: { ...Base58Address, description: 'the wallet' },
    alias: Type.String({ description: 'its public alias (receipts and public views show only this)' }),
    balance: { ...Amount, description: 'free arcade balance, USDC' },
    exposure: { ...Amount, description: "open bets' possible payout beyond their stakes, USDC" },
    stakedInPlay: { ...Amount, description: 'stakes locked in committed bets and open tickets, USDC' },
    pendingWithdrawals: { ...Amount, description: 'withdrawals requested and not yet paid, USDC' },
    nonces: Type.Object({ bet: Type.Integer({ description: 'the betNonce the next prepared bet carries' }) }, { description: 'nonces' }),
    sessionKeys: Type.Array(SessionKeyStatus, { description: 'session keys authorized (and revoked) on-chain' }),
    withdrawals: Type.Array(Withdrawal, { description: 'withdrawals, newest first' }),
    totals: Type.Object(
      {
        deposited: { ...Amount, description: 'credited deposits, USDC' },
        wagered: { ...Amount, description: 'settled stakes, USDC' },
        paidOut: { ...Amount, description: 'payouts, USDC' },
        plays: Type.Integer({ description: 'settled plays' }),
        wins: Type.Integer({ description: 'plays won' }),
      },
      { description: 'lifetime totals' },
    ),
  },
  { description: 'The player', examples: [EX.status, EX.statusLater] },
);

export const SyncResult = Type.Object(
  { applied: Type.Integer({ description: 'on-chain items applied by this call' }), status: PlayerStatus },
  { description: 'The wallet is in sync with the chain', examples: [EX.sync] },
);

export const FaucetBody = Type.Object(
  {
    wallet: Type.String({ description: 'wallet to fund (base58)' }),
    usdc: Type.Optional(OptionalAmountInput('dev USDC to mint to the wallet (default 1000, at most 1,000,000)')),
    sol: Type.Optional(Type.Number({ minimum: 0, maximum: 1000, description: 'SOL to airdrop for fees (default 1; 0, or at least 0.001)' })),
  },
  { examples: [EX.faucetBody] },
);

export const FaucetResult = Type.Object(
  {
    wallet: { ...Base58Address, description: 'the wallet' },
    tokenAccount: { ...Base58Address, description: 'its USDC associated token account' },
    usdc: { ...Amount, description: 'USDC minted' },
    sol: Type.Number({ description: 'SOL airdropped' }),
    signatures: Type.Array(Type.String({ description: 'a transaction signature' }), { description: 'the transactions' }),
  },
  { description: 'Funded', examples: [EX.faucet] },
);

/** `POST /api/protocol/v1/player/x402-deposit`: the amount as in the setup body. */
export const TopUpBody = Type.Object(
  { amount: AmountInput },
  { description: 'how much to top up; the payment rides in the payment-signature header', examples: [EX.topUpBody] },
);

export const TopUpHeaders = Type.Object({
  'payment-signature': Type.Optional(
    Type.String({
      description:
        "the x402 payment for accepts[0] of this route's 402 answer, as a stock @x402 client encodes it (base64 of x402's PaymentPayload); " +
        'absent: 402 with the offer. Each payment settles once. The example paid the example deployment, so here it is refused with a fresh offer',
      examples: [EX.paymentSignature],
    }),
  ),
});

export const TopUpResult = Type.Object(
  {
    payment: Type.Object(
      { id: Type.String({ description: 'the settled transaction signature' }), amount: { ...Amount, description: 'the amount credited, USDC' } },
      { description: 'the accepted payment' },
    ),
    balance: { ...Amount, description: 'the balance after the credit, USDC' },
  },
  { description: 'Credited', examples: [EX.topUp] },
);
