// Dice on Protocol V1: prepare, settle (from a reveal, a recovery seed, a wallet memo or the deadline), session.
import { gameRejected } from '../schemas/errors.ts';
import { microToNumber } from '../protocol/money.ts';
import { DiceRuleError, diceMultiplierBps, dicePayout, settleDice, targetToBps, winningCount, type DiceDirection } from '../protocol/dice.ts';
import { betPayloadHashOf, PROTOCOL_ID, type DiceBetPayload } from '../protocol/bet-payload.ts';
import type { BetRecord } from '../store/bets.ts';
import type { Services } from '../services.ts';
import { ackOf, checkPrepare, checkReveal, committedBetOf, parseWager, playerView, rngValueHex } from './bet-flow.ts';
import { betLogLeafHex, diceReceiptId, pendingAnchor, readReceipt, type ReceiptStatus } from './receipts.ts';
import type { Ack } from '../protocol/ack.ts';

export const DICE_GAME_ID = 'dice:protocol-v1';

export interface DicePrepareInput {
  commitment: string;
  sessionPubkey: string;
  direction?: unknown;
  target?: unknown;
  wager?: unknown;
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
export async function settleDiceBet(services: Services, bet: BetRecord, reveal: DiceReveal | null, knownAck?: Ack) {
  if (bet.state === 'settled') {
    const [settlement, player] = await Promise.all([storedSettlement(services, bet), services.ledger.player(bet.wallet)]);
    return { settlement, player, fresh: false };
  }
  const payload = JSON.parse(bet.payload) as DiceBetPayload;
  const ack = knownAck ?? ackOf(services, bet);
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

/** The reveal route: checks the seed and the reveal signature, then settles. */
export async function revealDice(services: Services, wallet: string, betPayloadHash: string, clientSeedRaw: string, sessionSignature: string) {
  const bet = await committedBetOf(services, wallet, betPayloadHash, 'dice');
  const ack = checkReveal(services, bet, clientSeedRaw, sessionSignature);
  const { settlement, player } = await settleDiceBet(services, bet, { clientSeedRaw, revealSignature: sessionSignature, via: 'reveal' }, ack);
  return { ...settlement, player: playerView(player) };
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
