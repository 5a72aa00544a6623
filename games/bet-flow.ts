// What every bet goes through, in Dice and Sweeper alike: prepare checks, the signed commit and its ack,
// and the reveal checks.
import { ApiError, gameRejected } from '../schemas/errors.ts';
import { betPayloadHashOf, type BetPayload } from '../protocol/bet-payload.ts';
import { verifyBase64Signature, verifySessionSignature } from '../protocol/signatures.ts';
import { signAck, type Ack } from '../protocol/ack.ts';
import { AmountError, microToNumber, parseAmount } from '../protocol/money.ts';
import { verifyCommitment } from '../protocol/commitment.ts';
import { utf8 } from '../protocol/encoding.ts';
import { limitsOf } from '../store/ledger.ts';
import type { AckFields, BetRecord, PlayerTotals } from '../store/bets.ts';
import type { Services } from '../services.ts';

const COMMIT_REJECTIONS: Record<string, string> = {
  not_prepared: 'No prepared bet with this betPayloadHash for this wallet (prepare it first; prepared bets expire)',
  not_found: 'No bet with this betPayloadHash for this wallet',
  expired: 'The prepared bet expired; prepare it again',
  stale_nonce: 'The bet nonce is stale: another bet was committed since this one was prepared; prepare again',
  commitment_used: 'This commitment was used before; every bet needs a fresh client seed',
  insufficient_balance: 'The wager exceeds the balance',
  max_bet: 'The wager exceeds house.maxBet',
  max_payout: 'The possible payout exceeds house.maxPayout',
  max_exposure: 'The bet would take the house over maxExposure',
  house_closed: 'Betting is paused: the house NAV is not positive',
  ticket_not_running: 'The ticket is not running',
  turn_pending: 'The previous turn of this ticket still awaits its reveal',
  row_order: 'Choices must be made in row order',
  cashout_zero: 'A cashout needs at least one cleared row',
};

/** Rejects a commit body whose hash is not the payload's, or whose session signature does not verify. */
export function checkCommitBody(betPayload: unknown, betPayloadHash: string, sessionSignature: string, game: BetPayload['game']): BetPayload {
  const payload = betPayload as BetPayload;
  if (typeof betPayload !== 'object' || betPayload === null || payload.game !== game) {
    throw gameRejected(`betPayload is not a ${game} payload`, 'bad_payload');
  }
  let recomputed: string;
  try {
    recomputed = betPayloadHashOf(payload);
  } catch {
    throw gameRejected('betPayload has no canonical JSON form', 'bad_payload');
  }
  if (recomputed !== betPayloadHash) throw gameRejected('betPayloadHash is not sha256 of the canonical betPayload', 'hash_mismatch');
  if (typeof payload.sessionPubkey !== 'string' || !verifySessionSignature(betPayloadHash, sessionSignature, payload.sessionPubkey)) {
    throw new ApiError('INVALID_SESSION_SIGNATURE', 'sessionSignature must be the session key\'s Ed25519 signature over the 32 bytes of betPayloadHash');
  }
  return payload;
}

/**
 * A committed bet's ack. Ed25519 is deterministic, so signing again gives the same ack on every replay,
 * and a signature costs less than storing and reading one back.
 */
export function ackOf(services: Services, bet: { hash: string } & AckFields): Ack {
  return signAck({ betPayloadHash: bet.hash, ...bet }, services.operator.ack.seed);
}

/** Runs the atomic commit and signs the ack; a re-sent commit gets the same ack. */
export async function commitBet(services: Services, wallet: string, betPayloadHash: string, sessionSignature: string, ticketId?: string): Promise<Ack> {
  const { config } = services;
  const now = services.now();
  const deadline = new Date(now.getTime() + config.REVEAL_DEADLINE_MS);
  const result = await services.bets.commit(betPayloadHash, wallet, {
    nowMs: now.getTime(),
    committedAt: now.toISOString(),
    revealDeadlineMs: deadline.getTime(),
    revealDeadline: deadline.toISOString(),
    limits: { maxBetBps: config.MAX_BET_BPS, maxPayoutBps: config.MAX_PAYOUT_BPS, maxExposureBps: config.MAX_EXPOSURE_BPS },
    sessionSignature,
    ...(ticketId ? { ticketId } : {}),
  });
  if (result.kind === 'err') {
    if (result.reason === 'session_key') {
      throw new ApiError('SESSION_KEY_NOT_AUTHORIZED', 'The session key is not authorized for this wallet (or was revoked)');
    }
    if (result.reason === 'rng_exhausted') throw new ApiError('SERVICE_UNAVAILABLE', 'No operator RNG chain is committed yet; retry shortly');
    const message = COMMIT_REJECTIONS[result.reason] ?? `Commit rejected (${result.reason})`;
    throw gameRejected(message, result.reason, result.detail ? { limitMicro: result.detail } : {});
  }
  return ackOf(services, { hash: betPayloadHash, ...result });
}

/** s_i of a committed bet. */
export function rngValueHex(services: Services, chainId: number, index: number): string {
  return services.rngChains.get(chainId).valueHex(index);
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

export const playerView = (p: PlayerTotals) => ({
  balance: microToNumber(p.balance),
  exposure: microToNumber(p.exposure),
  stakedInPlay: microToNumber(p.staked),
  nonce: p.nonce,
});

/** The caller's committed bet of this game, or a GAME_INPUT_REJECTED that reveals nothing about others' bets. */
export async function committedBetOf(services: Services, wallet: string, betPayloadHash: string, game: BetRecord['game']): Promise<BetRecord> {
  const bet = await services.bets.bet(betPayloadHash);
  if (!bet || bet.wallet !== wallet || bet.game !== game) {
    throw gameRejected(`No committed ${game} bet with this betPayloadHash for this wallet`, 'not_found');
  }
  return bet;
}

/**
 * The seed must open the commitment, and the committing key must sign the ack's revealMessage — even if it
 * was revoked since, and on a replay too.
 */
export function checkReveal(services: Services, bet: BetRecord, clientSeedRaw: string, sessionSignature: string): Ack {
  if (!verifyCommitment(clientSeedRaw, bet.commitment)) {
    throw gameRejected('clientSeedRaw does not match the bet\'s commitment (sha256 of the 32 seed bytes)', 'commitment_mismatch');
  }
  const ack = ackOf(services, bet);
  if (!verifyBase64Signature(sessionSignature, utf8(ack.revealMessage), bet.sessionPubkey)) {
    throw new ApiError('INVALID_SESSION_SIGNATURE', 'sessionSignature must sign the UTF-8 bytes of ack.revealMessage with the committing session key');
  }
  return ack;
}
