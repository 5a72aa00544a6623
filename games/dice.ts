// Dice on Protocol V1: prepare, settle (from a reveal, a recovery seed, a wallet memo or the deadline), session.
import { gameRejected, ApiError } from '../schemas/errors.ts';
import { AmountError, microToNumber, parseAmount } from '../protocol/money.ts';
import { DiceRuleError, diceMultiplierBps, dicePayout, settleDice, targetToBps, winningCount, type DiceDirection } from '../protocol/dice.ts';
import { betPayloadHashOf, PROTOCOL_ID, type DiceBetPayload } from '../protocol/bet-payload.ts';
import { isHex, utf8 } from '../protocol/encoding.ts';
import { verifyCommitment } from '../protocol/commitment.ts';
import { verifyBase64Signature } from '../protocol/signatures.ts';
import { limitsOf } from '../store/ledger.ts';
import type { BetRecord, PlayerTotals } from '../store/bets.ts';
import type { Services } from '../services.ts';
import { ackOf, rngValueHex } from './bet-flow.ts';
import { betLogLeafHex, diceReceiptId, pendingAnchor, readReceipt, type ReceiptStatus } from './receipts.ts';
import type { Ack } from '../protocol/ack.ts';

export const DICE_GAME_ID = 'dice:protocol-v1';

export interface DicePrepareInput {
  commitment: string;
  sessionPubkey: string;
  direction: unknown;
  target: unknown;
  wager: unknown;
}

export function parseWager(value: unknown): bigint {
  try {
    return parseAmount(value);
  } catch (err) {
    if (err instanceof AmountError) throw new ApiError('INVALID_BET_AMOUNT', `wager: ${err.message}`);
    throw err;
  }
}

const keyRejection = (status: string | null) =>
  new ApiError(
    'SESSION_KEY_NOT_AUTHORIZED',
    status ? 'The session key was revoked' : 'The session key is not authorized: send the setup transaction and sync first',
  );

/** Session key must be authorized and active for the wallet. */
export async function assertActiveSessionKey(services: Services, wallet: string, sessionPubkey: string): Promise<void> {
  const key = await services.ledger.sessionKey(wallet, sessionPubkey);
  if (!key || key.status !== 'active') throw keyRejection(key?.status ?? null);
}

/**
 * Everything prepare checks, from one atomic read: the key, the commitment, the balance and the live limits.
 * The commit script checks them all again.
 * @returns the bet nonce the payload carries
 */
export async function checkPrepare(services: Services, wallet: string, p: { sessionPubkey: string; commitment: string; wager: bigint; maxPayout: bigint }): Promise<number> {
  const view = await services.bets.prepareView(wallet, p.sessionPubkey, p.commitment);
  if (view.sessionKeyStatus !== 'active') throw keyRejection(view.sessionKeyStatus);
  if (view.commitmentUsed) throw gameRejected('This commitment was used before; every bet needs a fresh client seed', 'commitment_used');
  const { config } = services;
  const limits = limitsOf(view.house, { maxBetBps: config.MAX_BET_BPS, maxPayoutBps: config.MAX_PAYOUT_BPS, maxExposureBps: config.MAX_EXPOSURE_BPS });
  const usdc = (m: bigint) => microToNumber(m);
  if (limits.nav <= 0n) throw gameRejected('Betting is paused: the house NAV is not positive', 'house_closed');
  if (p.wager > view.balance) throw gameRejected(`The wager exceeds the balance (${usdc(view.balance)})`, 'insufficient_balance', { balance: usdc(view.balance) });
  if (p.wager > limits.maxBet) throw gameRejected(`The wager exceeds house.maxBet (${usdc(limits.maxBet)})`, 'max_bet', { maxBet: usdc(limits.maxBet) });
  if (p.maxPayout > limits.maxPayout) {
    throw gameRejected(`The possible payout ${usdc(p.maxPayout)} exceeds house.maxPayout (${usdc(limits.maxPayout)})`, 'max_payout', { maxPayout: usdc(limits.maxPayout) });
  }
  if (view.house.exposure + (p.maxPayout - p.wager) > limits.maxExposure) {
    throw gameRejected('The bet would take the house over maxExposure', 'max_exposure', { maxExposure: usdc(limits.maxExposure) });
  }
  return view.nonce;
}

export function diceParamsOf(direction: DiceDirection, targetBps: number, wager: bigint) {
  const count = winningCount(direction, targetBps);
  const multiplierBps = diceMultiplierBps(count);
  const payout = dicePayout(wager, multiplierBps);
  return {
    direction,
    target: targetBps / 100,
    targetBps,
    winningCount: count,
    winChance: count / 100,
    multiplierBps: Number(multiplierBps),
    multiplier: Number(multiplierBps) / 10_000,
    potentialPayout: microToNumber(payout),
    payoutMicro: payout,
  };
}

export async function prepareDice(services: Services, wallet: string, input: DicePrepareInput) {
  const wager = parseWager(input.wager);
  let targetBps: number;
  let params: ReturnType<typeof diceParamsOf>;
  try {
    targetBps = targetToBps(input.target);
    if (input.direction !== 'under' && input.direction !== 'over') throw new DiceRuleError('direction must be "under" or "over"');
    params = diceParamsOf(input.direction, targetBps, wager);
  } catch (err) {
    if (err instanceof DiceRuleError) throw gameRejected(err.message, 'bad_params');
    throw err;
  }
  const betNonce = await checkPrepare(services, wallet, { sessionPubkey: input.sessionPubkey, commitment: input.commitment, wager, maxPayout: params.payoutMicro });
  const now = services.now();
  const expiresAtMs = now.getTime() + services.config.PREPARE_TTL_MS;
  const betPayload: DiceBetPayload = {
    protocol: PROTOCOL_ID,
    game: 'dice',
    player: services.aliases.of(wallet),
    sessionPubkey: input.sessionPubkey,
    betNonce,
    wager: wager.toString(),
    params: { direction: params.direction, targetBps },
    commitment: input.commitment,
    expiresAt: new Date(expiresAtMs).toISOString(),
  };
  const betPayloadHash = betPayloadHashOf(betPayload);
  await services.bets.savePrepared(
    betPayloadHash,
    {
      wallet,
      game: 'dice',
      payload: JSON.stringify(betPayload),
      wager,
      maxPayout: params.payoutMicro,
      exposureDelta: params.payoutMicro - wager,
      sessionPubkey: input.sessionPubkey,
      commitment: input.commitment,
      betNonce,
      expiresAtMs,
    },
    services.config.PREPARE_TTL_MS,
  );
  const { payoutMicro: _omit, ...diceParams } = params;
  return { betPayload, betPayloadHash, diceParams };
}

export interface DiceReveal {
  clientSeedRaw: string;
  /** The reveal signature over revealMessage; null when the seed came from the recovery store or a wallet memo. */
  revealSignature: string | null;
  via: 'reveal' | 'recovery' | 'wallet-memo';
}

type DiceSettlement = ReturnType<typeof settlementOf>;

function settlementOf(receipt: {
  receiptId: string;
  result: unknown;
  proof: { betPayloadHash: string; rngReveal: string | null };
  verifierPayload: { ack: Ack; betLogEntry: unknown };
  anchor: { betLogEntryHash: string };
}) {
  return {
    betPayloadHash: receipt.proof.betPayloadHash,
    receiptId: receipt.receiptId,
    outcome: receipt.result,
    rngReveal: receipt.proof.rngReveal,
    ack: receipt.verifierPayload.ack,
    betLogEntry: receipt.verifierPayload.betLogEntry,
    betLogEntryHash: receipt.anchor.betLogEntryHash,
  };
}

/** A settled bet's reply, rebuilt from its receipt, so the settlement itself is never stored twice. */
async function storedSettlement(services: Services, bet: BetRecord): Promise<DiceSettlement> {
  const receipt = await readReceipt(services, diceReceiptId(bet.hash));
  if (!receipt) throw new Error(`settled bet ${bet.hash} has no receipt`);
  return settlementOf(receipt as unknown as Parameters<typeof settlementOf>[0]);
}

/** Settles a committed dice bet exactly once; replays return the stored settlement. */
export async function settleDiceBet(services: Services, bet: BetRecord, reveal: DiceReveal | null) {
  if (bet.state === 'settled') {
    const [settlement, player] = await Promise.all([storedSettlement(services, bet), services.ledger.player(bet.wallet)]);
    return { settlement, player, fresh: false };
  }
  const payload = JSON.parse(bet.payload) as DiceBetPayload;
  const ack = ackOf(services, bet);
  const settledAt = services.now().toISOString();
  const receiptId = diceReceiptId(bet.hash);
  const alias = payload.player;
  const rngReveal = reveal ? rngValueHex(services, bet.rngChainId, bet.rngIndex) : null;
  const outcome =
    reveal && rngReveal
      ? settleDice({
          rngValueHex: rngReveal,
          clientSeedRaw: reveal.clientSeedRaw,
          betPayloadHash: bet.hash,
          direction: payload.params.direction,
          targetBps: payload.params.targetBps,
          wagerMicro: bet.wager,
        })
      : null;
  const payout = outcome?.payout ?? 0n;
  const status: ReceiptStatus = !outcome ? 'forfeited' : outcome.won ? 'won' : 'lost';
  const betLogEntry = {
    v: 1,
    receiptId,
    game: 'dice',
    gameId: DICE_GAME_ID,
    player: alias,
    betPayloadHash: bet.hash,
    ackHash: ack.ackHash,
    rngChainHead: bet.rngChainHead,
    rngIndex: bet.rngIndex,
    commitment: bet.commitment,
    clientSeedRaw: reveal?.clientSeedRaw ?? null,
    roll: outcome?.roll ?? null,
    status,
    wager: bet.wager.toString(),
    payout: payout.toString(),
    settledAt,
  };
  const betLogEntryHash = betLogLeafHex(betLogEntry);
  const resultView = {
    roll: outcome?.roll ?? null,
    rollDisplay: outcome ? outcome.roll / 100 : null,
    direction: payload.params.direction,
    target: payload.params.targetBps / 100,
    targetBps: payload.params.targetBps,
    won: outcome?.won ?? false,
    status,
    multiplierBps: Number(diceMultiplierBps(winningCount(payload.params.direction, payload.params.targetBps))),
    payout: microToNumber(payout),
    payoutMicro: payout.toString(),
    profit: microToNumber(payout - bet.wager),
  };
  const receipt = {
    id: receiptId,
    receiptId,
    game: 'dice',
    gameId: DICE_GAME_ID,
    player: alias,
    actorAlias: alias,
    source: 'api',
    betAmount: microToNumber(bet.wager),
    payout: microToNumber(payout),
    profit: microToNumber(payout - bet.wager),
    status,
    input: {
      direction: payload.params.direction,
      target: payload.params.targetBps / 100,
      targetBps: payload.params.targetBps,
      wager: microToNumber(bet.wager),
      wagerMicro: bet.wager.toString(),
      commitment: bet.commitment,
      clientSeedRaw: reveal?.clientSeedRaw ?? null,
      sessionPubkey: bet.sessionPubkey,
      betNonce: bet.betNonce,
    },
    result: resultView,
    proof: {
      betPayloadHash: bet.hash,
      ackHash: ack.ackHash,
      rngChainHead: bet.rngChainHead,
      rngIndex: bet.rngIndex,
      rngReveal,
      revealedVia: reveal?.via ?? 'deadline',
    },
    verifierPayload: {
      version: 1,
      betPayload: payload,
      betPayloadHash: bet.hash,
      commitSignature: bet.commitSignature,
      ack,
      revealSignature: reveal?.revealSignature ?? null,
      clientSeedRaw: reveal?.clientSeedRaw ?? null,
      rngReveal,
      betLogEntry,
    },
    anchor: pendingAnchor(betLogEntryHash),
    createdAt: settledAt,
  };
  const settlement = settlementOf(receipt);
  const result = await services.bets.settleDice(bet.hash, bet.wallet, {
    payout,
    houseNet: bet.wager - payout,
    settlementJson: receiptId,
    receiptId,
    receiptJson: JSON.stringify(receipt),
    leafHashHex: betLogEntryHash,
    settledAt,
    disclosedIndex: rngReveal ? bet.rngIndex : 0,
    eventJson: JSON.stringify({
      game: 'dice', player: alias, receiptId, betPayloadHash: bet.hash, rngIndex: bet.rngIndex, rngReveal,
      wager: bet.wager.toString(), payout: payout.toString(), status, roll: outcome?.roll ?? null,
    }),
    recentJson: JSON.stringify({
      receiptId, roll: resultView.roll, rollDisplay: resultView.rollDisplay, direction: resultView.direction, target: resultView.target,
      won: resultView.won, status, wager: microToNumber(bet.wager), payout: resultView.payout, settledAt,
    }),
    won: status === 'won',
    playJson: JSON.stringify({
      game: 'dice', receiptId, player: alias, source: 'api', status, wager: microToNumber(bet.wager), payout: microToNumber(payout),
      roll: resultView.roll, settledAt,
    }),
  });
  if (result.kind === 'err') throw gameRejected('No committed bet with this betPayloadHash for this wallet', result.reason);
  const stored = result.kind === 'ok' ? settlement : await storedSettlement(services, bet);
  return { settlement: stored, player: result.player, fresh: result.kind === 'ok' };
}

export const playerView = (p: PlayerTotals) => ({
  balance: microToNumber(p.balance),
  exposure: microToNumber(p.exposure),
  stakedInPlay: microToNumber(p.staked),
  nonce: p.nonce,
});

/** The reveal route: checks the seed and the reveal signature, then settles. */
export async function revealDice(services: Services, wallet: string, betPayloadHash: string, clientSeedRaw: string, sessionSignature: string) {
  const bet = await services.bets.bet(betPayloadHash);
  if (!bet || bet.wallet !== wallet || bet.game !== 'dice') {
    throw gameRejected('No committed dice bet with this betPayloadHash for this wallet', 'not_found');
  }
  if (!verifyCommitment(clientSeedRaw, bet.commitment)) {
    throw gameRejected('clientSeedRaw does not match the bet\'s commitment (sha256 of the 32 seed bytes)', 'commitment_mismatch');
  }
  const ack = ackOf(services, bet);
  if (bet.state !== 'settled' && !verifyBase64Signature(sessionSignature, utf8(ack.revealMessage), bet.sessionPubkey)) {
    throw new ApiError('INVALID_SESSION_SIGNATURE', 'sessionSignature must sign the UTF-8 bytes of ack.revealMessage with the committing session key');
  }
  const { settlement, player } = await settleDiceBet(services, bet, { clientSeedRaw, revealSignature: sessionSignature, via: 'reveal' });
  return { ...settlement, player: playerView(player) };
}

export async function storeRecoverySeed(services: Services, wallet: string, betPayloadHash: string, clientSeedRaw: string) {
  const bet = await services.bets.bet(betPayloadHash);
  if (!bet || bet.wallet !== wallet) {
    throw gameRejected('Recovery seeds are accepted only after the commit ack exists for this wallet\'s bet', 'not_committed');
  }
  if (!verifyCommitment(clientSeedRaw, bet.commitment)) throw gameRejected('clientSeedRaw does not match the bet\'s commitment', 'commitment_mismatch');
  await services.bets.saveRecoverySeed(betPayloadHash, clientSeedRaw);
  return { betPayloadHash, stored: true, state: bet.state };
}

export async function fetchRecoverySeed(services: Services, wallet: string, betPayloadHash: string) {
  if (!isHex(betPayloadHash, 32)) throw new ApiError('INVALID_REQUEST', 'betPayloadHash must be 32 bytes of lowercase hex');
  const bet = await services.bets.bet(betPayloadHash);
  if (!bet || bet.wallet !== wallet) throw new ApiError('NOT_FOUND', 'No committed bet with this betPayloadHash for this wallet');
  const clientSeedRaw = await services.bets.recoverySeed(betPayloadHash);
  if (!clientSeedRaw) throw new ApiError('NOT_FOUND', 'No recovery seed was stored for this bet');
  return { betPayloadHash, clientSeedRaw, state: bet.state, ack: ackOf(services, bet) };
}

export async function diceSession(services: Services, wallet: string) {
  const [player, pendingHashes, recentRolls, head] = await Promise.all([
    services.ledger.player(wallet),
    services.bets.pendingBets(wallet),
    services.bets.recentPlays(wallet, 'dice', 20),
    services.redis.hget(services.keys.rng(), 'head'),
  ]);
  const pending = (await Promise.all(pendingHashes.map((h) => services.bets.bet(h))))
    .filter((b): b is BetRecord => b !== null && b.game === 'dice' && b.state === 'committed')
    .sort((a, b) => a.betNonce - b.betNonce)
    .map((b) => {
      const payload = JSON.parse(b.payload) as DiceBetPayload;
      return {
        status: 'awaiting_reveal' as const,
        betPayloadHash: b.hash,
        betNonce: b.betNonce,
        rngIndex: b.rngIndex,
        wager: microToNumber(b.wager),
        direction: payload.params.direction,
        target: payload.params.targetBps / 100,
        commitment: b.commitment,
        committedAt: b.committedAt,
        revealDeadline: b.revealDeadline,
        ack: ackOf(services, b),
      };
    });
  return {
    balance: microToNumber(player.balance),
    nonce: player.nonce,
    serverSeedHash: head ?? null,
    recentRolls,
    pendingBet: pending[0] ?? null,
    pendingBets: pending,
  };
}
