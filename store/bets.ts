// Bet records in Redis: prepared payloads, the commit and settle scripts, recovery seeds and deadlines.
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import type { ScriptRunner } from './scripts.ts';
import type { LimitSettings, LockedTotals } from './ledger.ts';

export interface PreparedBet {
  wallet: string;
  game: 'dice' | 'sweeper';
  payload: string;
  wager: bigint;
  maxPayout: bigint;
  exposureDelta: bigint;
  sessionPubkey: string;
  commitment: string;
  betNonce: number;
  expiresAtMs: number;
  ticketId?: string;
  turn?: 'choice' | 'cashout';
}

export interface PrepareView {
  sessionKeyStatus: string | null;
  commitmentUsed: boolean;
  balance: bigint;
  nonce: number;
  house: LockedTotals;
}

export interface BetRecord {
  hash: string;
  wallet: string;
  state: 'committed' | 'settled';
  game: 'dice' | 'sweeper';
  payload: string;
  wager: bigint;
  stake: bigint;
  maxPayout: bigint;
  sessionPubkey: string;
  commitment: string;
  betNonce: number;
  rngIndex: number;
  rngChainId: number;
  rngChainHead: string;
  committedAt: string;
  revealDeadline: string;
  revealDeadlineMs: number;
  commitSignature: string;
  ticketId: string;
  turn: string;
  settlement: string | null;
}

export interface AckFields {
  betNonce: number;
  rngIndex: number;
  rngChainHead: string;
  committedAt: string;
  revealDeadline: string;
}

export type CommitResult = ({ kind: 'ok' | 'dup' } & AckFields) | { kind: 'err'; reason: string; detail: string | null };

export interface PlayerTotals {
  balance: bigint;
  staked: bigint;
  exposure: bigint;
  nonce: number;
}

export type SettleResult = { kind: 'ok' | 'dup'; settlement: string; player: PlayerTotals } | { kind: 'err'; reason: string };

/** Balance, staked, exposure and nonce as the settle scripts return them, from `offset` on. */
export function playerTotalsOf(reply: readonly (string | null)[], offset: number): PlayerTotals {
  return {
    balance: BigInt(reply[offset] ?? '0'),
    staked: BigInt(reply[offset + 1] ?? '0'),
    exposure: BigInt(reply[offset + 2] ?? '0'),
    nonce: Number(reply[offset + 3] ?? 0),
  };
}

export interface SettleArgs {
  payout: bigint;
  houseNet: bigint;
  settlementJson: string;
  receiptId: string;
  receiptJson: string;
  leafHashHex: string;
  settledAt: string;
  disclosedIndex: number;
  eventJson: string;
  recentJson: string;
  won: boolean;
  /** Published on the plays channel for live feeds, in the same script. */
  playJson: string;
}

export class BetStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: ScriptRunner,
  ) {}

  async isCommitmentUsed(commitment: string): Promise<boolean> {
    return (await this.redis.sismember(this.keys.commitments(), commitment)) === 1;
  }

  async savePrepared(hash: string, bet: PreparedBet, ttlMs: number): Promise<void> {
    // One JSON string (amounts as decimal strings), so saving is one command and the commit script decodes it.
    const record = {
      wallet: bet.wallet,
      game: bet.game,
      payload: bet.payload,
      wager: bet.wager.toString(),
      maxPayout: bet.maxPayout.toString(),
      exposureDelta: bet.exposureDelta.toString(),
      sessionPubkey: bet.sessionPubkey,
      commitment: bet.commitment,
      betNonce: String(bet.betNonce),
      expiresAtMs: String(bet.expiresAtMs),
      ticketId: bet.ticketId ?? '',
      turn: bet.turn ?? '',
    };
    await this.redis.set(this.keys.prepared(hash), JSON.stringify(record), 'PX', ttlMs + 60_000);
  }

  /** The state prepare checks, read atomically in one call. */
  async prepareView(wallet: string, sessionPubkey: string, commitment: string): Promise<PrepareView> {
    const k = this.keys;
    const r = (await this.scripts.prepareView([k.sessionKeys(wallet), k.commitments(), k.player(wallet), k.house()], [sessionPubkey, commitment])) as (
      | string
      | number
    )[];
    const big = (i: number) => BigInt(r[i] as string);
    return {
      sessionKeyStatus: (r[0] as string) || null,
      commitmentUsed: r[1] === 1,
      balance: big(2),
      nonce: Number(r[3]),
      house: { vault: big(4), balances: big(5), staked: big(6), exposure: big(7), pendingWithdrawals: big(8), unattributed: big(9), lpPending: big(10) },
    };
  }

  async commit(
    hash: string,
    wallet: string,
    args: { nowMs: number; committedAt: string; revealDeadlineMs: number; revealDeadline: string; limits: LimitSettings; sessionSignature: string; ticketId?: string },
  ): Promise<CommitResult> {
    const k = this.keys;
    const reply = (await this.scripts.commitBet(
      [
        k.player(wallet), k.sessionKeys(wallet), k.prepared(hash), k.bet(hash), k.commitments(), k.house(), k.rng(),
        k.journal(), k.journalSeq(), k.pendingBets(wallet), k.deadlines(), k.ticket(args.ticketId ?? '-'),
      ],
      [
        hash, wallet, args.nowMs, args.committedAt, args.revealDeadlineMs, args.revealDeadline,
        args.limits.maxExposureBps, args.limits.maxPayoutBps, args.limits.maxBetBps, args.sessionSignature,
      ],
    )) as (string | null)[];
    if (reply[0] === 'err') return { kind: 'err', reason: reply[1] as string, detail: reply[2] ?? null };
    return {
      kind: reply[0] as 'ok' | 'dup',
      betNonce: Number(reply[1]),
      rngIndex: Number(reply[2]),
      rngChainHead: reply[3] as string,
      committedAt: reply[4] as string,
      revealDeadline: reply[5] as string,
    };
  }

  async bet(hash: string): Promise<BetRecord | null> {
    const r = await this.redis.hgetall(this.keys.bet(hash));
    if (!r.wallet) return null;
    return {
      hash,
      wallet: r.wallet,
      state: r.state as BetRecord['state'],
      game: r.game as BetRecord['game'],
      payload: r.payload ?? '',
      wager: BigInt(r.wager ?? '0'),
      stake: BigInt(r.stake ?? '0'),
      maxPayout: BigInt(r.maxPayout ?? '0'),
      sessionPubkey: r.sessionPubkey ?? '',
      commitment: r.commitment ?? '',
      betNonce: Number(r.betNonce),
      rngIndex: Number(r.rngIndex),
      rngChainId: Number(r.rngChainId),
      rngChainHead: r.rngChainHead ?? '',
      committedAt: r.committedAt ?? '',
      revealDeadline: r.revealDeadline ?? '',
      revealDeadlineMs: Number(r.revealDeadlineMs),
      commitSignature: r.commitSignature ?? '',
      ticketId: r.ticketId ?? '',
      turn: r.turn ?? '',
      settlement: r.settlement ?? null,
    };
  }

  async settleDice(hash: string, wallet: string, a: SettleArgs): Promise<SettleResult> {
    const k = this.keys;
    const reply = (await this.scripts.settleBet(
      [
        k.player(wallet), k.bet(hash), k.house(), k.journal(), k.journalSeq(), k.pendingBets(wallet), k.deadlines(),
        k.betLog(), k.receipt(a.receiptId), k.rng(), k.recentPlays(wallet, 'dice'),
      ],
      [
        hash, wallet, a.payout.toString(), a.houseNet.toString(), a.settlementJson, a.receiptJson,
        `${a.leafHashHex}:${a.receiptId}`, a.settledAt, a.disclosedIndex, a.eventJson, a.recentJson, a.won ? '1' : '0',
        k.playsChannel(), a.playJson,
      ],
    )) as (string | null)[];
    if (reply[0] === 'err') return { kind: 'err', reason: reply[1] as string };
    return { kind: reply[0] as 'ok' | 'dup', settlement: reply[1] as string, player: playerTotalsOf(reply, 2) };
  }

  async saveRecoverySeed(hash: string, clientSeedRaw: string): Promise<void> {
    await this.redis.set(this.keys.recoverySeed(hash), clientSeedRaw);
  }

  async recoverySeed(hash: string): Promise<string | null> {
    return this.redis.get(this.keys.recoverySeed(hash));
  }

  async pendingBets(wallet: string): Promise<string[]> {
    return this.redis.smembers(this.keys.pendingBets(wallet));
  }

  /** Wallets whose bets were committed before `committedBeforeMs` and still wait for their reveal, oldest first. */
  async waitingWallets(committedBeforeMs: number, revealDeadlineMs: number, limit: number): Promise<string[]> {
    const hashes = await this.redis.zrangebyscore(this.keys.deadlines(), '-inf', String(committedBeforeMs + revealDeadlineMs), 'LIMIT', 0, limit);
    const wallets = await Promise.all(hashes.map((h) => this.redis.hget(this.keys.bet(h), 'wallet')));
    return [...new Set(wallets.filter((w): w is string => !!w))];
  }

  async dueBets(nowMs: number, limit: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.keys.deadlines(), '-inf', String(nowMs), 'LIMIT', 0, limit);
  }

  async recentPlays(wallet: string, game: 'dice' | 'sweeper', count: number): Promise<unknown[]> {
    const raw = await this.redis.lrange(this.keys.recentPlays(wallet, game), 0, count - 1);
    return raw.map((r) => JSON.parse(r) as unknown);
  }

  async receipt(receiptId: string): Promise<{ body: string; anchor: string | null } | null> {
    const [body, anchor] = await this.redis.hmget(this.keys.receipt(receiptId), 'body', 'anchor');
    return body ? { body, anchor: anchor ?? null } : null;
  }
}
