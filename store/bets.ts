// Bet records in Redis: prepared payloads, the commit and settle scripts, recovery seeds and deadlines.
import type { Redis } from 'ioredis';
import type { Address, Base58Key } from '../protocol/address.ts';
import type { AgentLimitSettings } from '../protocol/agent-limits.ts';
import type { LimitSettings, LockedTotals } from '../protocol/house.ts';
import { isLedgerRejection, type LedgerRejection } from '../protocol/errors.ts';
import type { PlaySource } from '../protocol/receipt.ts';
import type { Hex32 } from '../protocol/hex32.ts';
import type { Keys } from './keys.ts';
import { noDeadline, type NotAfter } from './redis.ts';
import type { SettleTurnFields } from './script-fields.ts';
import type { Scripts } from './scripts.ts';
import { replayArg, type JournalRecord } from './journal-records.ts';

export interface PreparedBet {
  wallet: Address;
  game: 'dice' | 'sweeper';
  payload: string;
  wager: bigint;
  maxPayout: bigint;
  /** The exposure this bet or turn reserves at commit. */
  exposureDelta: bigint;
  sessionPubkey: Base58Key;
  commitment: Hex32;
  betNonce: number;
  expiresAtMs: number;
  ticketId?: string;
  turn?: 'choice' | 'cashout';
  source: PlaySource;
}

export interface PrepareView {
  sessionKeyStatus: string | null;
  commitmentUsed: boolean;
  balance: bigint;
  nonce: number;
  /** The wallet's open exposure. */
  exposure: bigint;
  house: LockedTotals;
}

/** A prepared bet for `prepareView` to store in the same call, with what its commit will check it against. */
export interface PreparedSave {
  hash: Hex32;
  bet: PreparedBet;
  ttlMs: number;
  cap: number;
  /** A new stake (its wager against the balance and the limits) or a turn of a play (only the exposure it reserves). */
  locks: 'stake' | 'play';
  limits: LimitSettings;
}

/** A prepared bet as stored: one JSON string (amounts as decimal strings), so the commit script decodes it at once. */
const preparedRecord = (bet: PreparedBet): string =>
  JSON.stringify({
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
    source: bet.source,
  });

export interface BetRecord {
  hash: Hex32;
  wallet: Address;
  state: 'committed' | 'settled';
  game: 'dice' | 'sweeper';
  payload: string;
  wager: bigint;
  stake: bigint;
  maxPayout: bigint;
  sessionPubkey: Base58Key;
  commitment: Hex32;
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
  source: PlaySource;
  settlement: string | null;
}

export interface AckFields {
  betNonce: number;
  rngIndex: number;
  rngChainHead: string;
  committedAt: string;
  revealDeadline: string;
}

/** What a bet's ack is signed from. */
export type AckSource = { hash: Hex32 } & AckFields;

/**
 * A fresh commit (`ok`) carries the bet as stored, which its reveal can use instead of reading it back; a re-sent one
 * (`dup`) names the bet's state, which may be settled by now.
 */
export type CommitResult =
  | ({ kind: 'ok'; state: 'committed'; bet: BetRecord } & AckFields)
  | ({ kind: 'dup'; state: BetRecord['state'] } & AckFields)
  | { kind: 'err'; reason: LedgerRejection; detail: string | null };

/** A script's `{'err', reason, detail}` reply, typed; an unknown reason is a ledger bug, not a client error. */
export function rejectionOf(reply: readonly (string | null)[]): { kind: 'err'; reason: LedgerRejection; detail: string | null } {
  const reason = reply[1];
  if (!isLedgerRejection(reason)) throw new Error(`ledger script gave an unknown reason ${String(reason)}`);
  return { kind: 'err', reason, detail: reply[2] ?? null };
}

export interface PlayerTotals {
  balance: bigint;
  staked: bigint;
  exposure: bigint;
  nonce: number;
}

export type SettleResult =
  | {
      kind: 'ok' | 'dup';
      settlement: string;
      player: PlayerTotals;
      /** The journal seq of the play's settle event, when this call ended the play (null for a replay or a turn). */
      endSeq: number | null;
    }
  | { kind: 'err'; reason: LedgerRejection; detail: string | null };

/** Balance, staked, exposure and nonce as the settle scripts return them, from `offset` on. */
export function playerTotalsOf(reply: readonly (string | null)[], offset: number): PlayerTotals {
  return {
    balance: BigInt(reply[offset] ?? '0'),
    staked: BigInt(reply[offset + 1] ?? '0'),
    exposure: BigInt(reply[offset + 2] ?? '0'),
    nonce: Number(reply[offset + 3] ?? 0),
  };
}

/**
 * The state of a play that spans turns, written by every turn of any game through settle_turn.lua: the ledger's part
 * (status, banked, outcome) and the game's own fields, stored on the play's hash as they are.
 */
export interface PlayWrite {
  status: 'running' | 'settled';
  /** What the play is owed above its stake now (0 once it ends): a liability the house books in place of the one before. */
  banked: bigint;
  /** The play's outcome, recorded when it ends. */
  outcome: string;
  /** The game's own state (Sweeper: rowsWon, turns); a name the ledger keeps for itself is refused. */
  state: Readonly<Record<string, string>>;
}

/** Fields of a play's hash that settle_turn.lua and the other ledger scripts own. */
const LEDGER_PLAY_FIELDS = new Set([
  'wallet',
  'status',
  'mode',
  'wager',
  'fullPayout',
  'banked',
  'pendingTurn',
  'createdAt',
  'nonce',
  'serverSeedHash',
  'source',
  'activeAtMs',
  'exposureDelta',
  'endedAt',
  'payout',
  'outcome',
  'closedBy',
]);

/** settle_turn's play fields: the ledger's, then the game's state as `state.<name>`. */
function playFields(playId: string, play: PlayWrite): SettleTurnFields {
  if (!playId) throw new Error('a play that spans turns needs its id');
  const fields: SettleTurnFields = {} as SettleTurnFields;
  for (const [name, value] of Object.entries(play.state)) {
    if (LEDGER_PLAY_FIELDS.has(name)) throw new Error(`a game's play state may not write the ledger's field ${name}`);
    fields[`state.${name}`] = value;
  }
  return Object.assign(fields, { playId, playStatus: play.status, playBanked: play.banked, playOutcome: play.outcome });
}

/** What settling one turn writes; `end` is there when the turn ends its play. */
export interface TurnWrite {
  /** Stored on the bet: a replayed reveal rebuilds its reply from it. */
  settlement: string;
  /** The RNG index now disclosed to the player (0 when the turn drew nothing). */
  disclosedIndex: number;
  turnEvent: { type: string; json: string } | null;
  /** The new state of the play the turn belongs to, when the play spans turns (a Sweeper ticket). */
  play: PlayWrite | null;
  /** `idle` when the deadline worker closed an idle ticket (design §10). */
  closedBy?: 'idle';
  end: {
    payout: bigint;
    houseNet: bigint;
    won: boolean;
    receiptId: string;
    receiptJson: string;
    leafHashHex: string;
    /** The bet-log entry's JCS text, stored beside the receipt so entry bundles are served as stored, not rebuilt. */
    entryJson: string;
    event: { type: string; json: string };
    /** Pushed on the wallet's recent plays of the game. */
    recentJson: string;
    /**
     * The public play (design §8 shape), published on the plays channel for live feeds in the same script as
     * `{"seq":<seq of the settle event>,"play":<playJson>}`; '' publishes nothing.
     */
    playJson: string;
  } | null;
}

export class BetStore {
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: Scripts,
    /** When a money-moving script sent now must no longer run (store/redis.ts). */
    readonly notAfter: NotAfter = noDeadline,
  ) {}

  async isCommitmentUsed(commitment: Hex32): Promise<boolean> {
    return (await this.redis.sismember(this.keys.commitments(), commitment)) === 1;
  }

  /** Stores a prepared bet; past `cap` outstanding for its wallet, the oldest expires at once. */
  async savePrepared(hash: Hex32, bet: PreparedBet, ttlMs: number, cap: number): Promise<void> {
    const k = this.keys;
    await this.scripts.saveCapped([k.prepared(hash), k.preparedBets(bet.wallet)], [hash, preparedRecord(bet), ttlMs + 60_000, cap, k.preparedPrefix()]);
  }

  /**
   * The state prepare checks, read atomically in one call; the key and commitment are looked up as sent. With `save`,
   * the same call stores the prepared bet as `savePrepared` does when it carries the wallet's nonce and passes its
   * commit's checks (prepare_bet.lua); `saved` says whether it did.
   */
  async prepareView(wallet: Address, sessionPubkey: string, commitment: string, save?: PreparedSave): Promise<PrepareView & { saved: boolean }> {
    const k = this.keys;
    const keys = [k.sessionKeys(wallet), k.commitments(), k.player(wallet), k.house()];
    const fields = save
      ? {
          sessionPubkey,
          commitment,
          nonce: save.bet.betNonce,
          id: save.hash,
          record: preparedRecord(save.bet),
          ttlMs: save.ttlMs + 60_000,
          cap: save.cap,
          recordKeyPrefix: k.preparedPrefix(),
          locks: save.locks,
          wager: save.bet.wager,
          maxPayout: save.bet.maxPayout,
          exposure: save.bet.exposureDelta,
          maxExposureBps: save.limits.maxExposureBps,
          maxPayoutBps: save.limits.maxPayoutBps,
          maxBetBps: save.limits.maxBetBps,
          maxWalletExposureBps: save.limits.maxWalletExposureBps ?? 10_000,
        }
      : { sessionPubkey, commitment };
    const r = (await this.scripts.prepareBet(
      save ? [...keys, k.prepared(save.hash), k.preparedBets(wallet)] : [...keys, k.prepared('-'), k.preparedBets(wallet)],
      fields,
    )) as (string | number)[];
    const big = (i: number) => BigInt(r[i] as string);
    return {
      sessionKeyStatus: (r[0] as string) || null,
      commitmentUsed: r[1] === 1,
      balance: big(2),
      nonce: Number(r[3]),
      exposure: big(13),
      house: {
        vault: big(4),
        balances: big(5),
        staked: big(6),
        exposure: big(7),
        pendingWithdrawals: big(8),
        unattributed: big(9),
        lpPending: big(10),
        lpPayable: big(11),
        banked: big(12),
      },
      saved: r[14] === 1,
    };
  }

  async commit(
    hash: Hex32,
    wallet: Address,
    args: {
      nowMs: number;
      committedAt: string;
      revealDeadlineMs: number;
      revealDeadline: string;
      /** The deadline a bet gets instead while exposure is scarce (above `scarceExposureBps` of maxExposure). */
      shortReveal?: { deadlineMs: number; deadline: string; scarceExposureBps: number };
      limits: LimitSettings;
      /** The agent window an MCP stake is checked against and booked in. */
      agent: AgentLimitSettings;
      sessionSignature: string;
      ticketId?: string;
      /** Committed bets of the wallet awaiting their reveal, at most (Sweeper turns not counted). */
      maxUnrevealed: number;
    },
  ): Promise<CommitResult> {
    const k = this.keys;
    const reply = (await this.scripts.commitBet(
      [
        k.player(wallet),
        k.sessionKeys(wallet),
        k.prepared(hash),
        k.bet(hash),
        k.commitments(),
        k.house(),
        k.rng(),
        k.journal(),
        k.journalSeq(),
        k.pendingBets(wallet),
        k.deadlines(),
        k.ticket(args.ticketId ?? '-'),
        k.agentWagers(wallet),
        k.agentWagered(wallet),
        k.preparedBets(wallet),
      ],
      {
        hash,
        wallet,
        nowMs: args.nowMs,
        committedAt: args.committedAt,
        revealDeadlineMs: args.revealDeadlineMs,
        revealDeadline: args.revealDeadline,
        maxExposureBps: args.limits.maxExposureBps,
        maxPayoutBps: args.limits.maxPayoutBps,
        maxBetBps: args.limits.maxBetBps,
        sessionSignature: args.sessionSignature,
        agentMaxWagered: args.agent.maxWagered,
        agentWindowMs: args.agent.windowMs,
        maxUnrevealed: args.maxUnrevealed,
        notAfterMs: this.notAfter(),
        maxWalletExposureBps: args.limits.maxWalletExposureBps ?? 10_000,
        ...(args.shortReveal
          ? {
              shortRevealDeadlineMs: args.shortReveal.deadlineMs,
              shortRevealDeadline: args.shortReveal.deadline,
              scarceExposureBps: args.shortReveal.scarceExposureBps,
            }
          : {}),
      },
    )) as (string | null)[];
    if (reply[0] === 'err') return rejectionOf(reply);
    const ack = {
      betNonce: Number(reply[1]),
      rngIndex: Number(reply[2]),
      rngChainHead: reply[3] as string,
      committedAt: reply[4] as string,
      revealDeadline: reply[5] as string,
    };
    if (reply[0] === 'dup') return { kind: 'dup', state: reply[6] === 'settled' ? 'settled' : 'committed', ...ack };
    const r = reply as string[];
    const bet: BetRecord = {
      hash,
      wallet,
      state: 'committed',
      game: r[7] as BetRecord['game'],
      payload: r[8]!,
      wager: BigInt(r[9]!),
      stake: BigInt(r[10]!),
      maxPayout: BigInt(r[11]!),
      sessionPubkey: r[12] as Base58Key,
      commitment: r[13] as Hex32,
      betNonce: ack.betNonce,
      rngIndex: ack.rngIndex,
      rngChainId: Number(r[14]),
      rngChainHead: ack.rngChainHead,
      committedAt: ack.committedAt,
      revealDeadline: ack.revealDeadline,
      revealDeadlineMs: Number(r[15]),
      commitSignature: args.sessionSignature,
      ticketId: r[16]!,
      turn: r[17]!,
      source: r[18] === 'mcp' ? 'mcp' : 'api',
      settlement: null,
    };
    return { kind: 'ok', state: 'committed', bet, ...ack };
  }

  async bet(hash: Hex32): Promise<BetRecord | null> {
    const r = await this.redis.hgetall(this.keys.bet(hash));
    if (!r.wallet) return null;
    return {
      hash,
      wallet: r.wallet as Address,
      state: r.state as BetRecord['state'],
      game: r.game as BetRecord['game'],
      payload: r.payload ?? '',
      wager: BigInt(r.wager ?? '0'),
      stake: BigInt(r.stake ?? '0'),
      maxPayout: BigInt(r.maxPayout ?? '0'),
      sessionPubkey: (r.sessionPubkey ?? '') as Base58Key,
      commitment: (r.commitment ?? '') as Hex32,
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
      source: r.source === 'mcp' ? 'mcp' : 'api',
      settlement: r.settlement ?? null,
    };
  }

  /**
   * Settles one turn atomically (store/scripts/settle_turn.lua); a replay answers `dup` and changes nothing.
   * With `idle` (and an empty `bet.hash`) it closes an idle ticket through the same script instead: only a running
   * ticket with no turn in flight, last active at or before `idle.cutoffMs`. `replay` (ledger recovery only) names the
   * archived journal entries the settlement wrote, which it writes again instead of new ones.
   */
  async settleTurn(
    bet: Pick<BetRecord, 'wallet' | 'game' | 'ticketId'> & { hash: Hex32 | '' },
    w: TurnWrite,
    settledAt: string,
    idle?: { cutoffMs: number },
    replay?: readonly JournalRecord[],
  ): Promise<SettleResult> {
    const k = this.keys;
    const end = w.end;
    if ((bet.hash === '') !== (idle !== undefined)) throw new Error('an idle close names no bet, and only an idle close');
    const reply = (await this.scripts.settleTurn(
      [
        k.player(bet.wallet),
        k.bet(bet.hash),
        k.ticket(bet.ticketId || '-'),
        k.activeTicket(bet.wallet),
        k.house(),
        k.journal(),
        k.journalSeq(),
        k.pendingBets(bet.wallet),
        k.deadlines(),
        k.betLog(),
        k.receipt(end?.receiptId ?? '-'),
        k.rng(),
        k.recentPlays(bet.wallet, bet.game),
        k.idleTickets(),
      ],
      {
        hash: bet.hash,
        wallet: bet.wallet,
        settlement: w.settlement,
        settledAt,
        settledAtMs: Date.parse(settledAt),
        disclosedIndex: w.disclosedIndex,
        ...(w.turnEvent ? { turnEventType: w.turnEvent.type, turnEventJson: w.turnEvent.json } : {}),
        ...(w.play ? playFields(bet.ticketId, w.play) : {}),
        ...(idle ? { idleCutoffMs: idle.cutoffMs } : {}),
        ...(w.closedBy ? { closedBy: w.closedBy } : {}),
        ...(end
          ? {
              ended: true,
              payout: end.payout,
              houseNet: end.houseNet,
              won: end.won,
              receiptJson: end.receiptJson,
              entryJson: end.entryJson,
              betLogItem: `${end.leafHashHex}:${end.receiptId}`,
              endEventType: end.event.type,
              endEventJson: end.event.json,
              recentJson: end.recentJson,
              livePlayJson: end.playJson,
              playsChannel: k.playsChannel(),
            }
          : {}),
        replay: replayArg(replay),
      },
    )) as (string | null)[];
    if (reply[0] === 'err') return rejectionOf(reply);
    return { kind: reply[0] as 'ok' | 'dup', settlement: reply[1] as string, player: playerTotalsOf(reply, 2), endSeq: reply[6] ? Number(reply[6]) : null };
  }

  /** The player fields a bet reply shows. */
  async playerTotals(wallet: Address): Promise<PlayerTotals> {
    return playerTotalsOf(await this.redis.hmget(this.keys.player(wallet), 'balance', 'staked', 'exposure', 'nonce'), 0);
  }

  async saveRecoverySeed(hash: Hex32, clientSeedRaw: string): Promise<void> {
    await this.redis.set(this.keys.recoverySeed(hash), clientSeedRaw);
  }

  async recoverySeed(hash: Hex32): Promise<string | null> {
    return this.redis.get(this.keys.recoverySeed(hash));
  }

  async pendingBets(wallet: Address): Promise<Hex32[]> {
    return this.redis.smembers(this.keys.pendingBets(wallet)) as Promise<Hex32[]>;
  }

  /** Wallets whose bets were committed before `committedBeforeMs` and still wait for their reveal, oldest first. */
  async waitingWallets(committedBeforeMs: number, revealDeadlineMs: number, limit: number): Promise<Address[]> {
    const hashes = await this.redis.zrangebyscore(this.keys.deadlines(), '-inf', String(committedBeforeMs + revealDeadlineMs), 'LIMIT', 0, limit);
    const wallets = await Promise.all(hashes.map((h) => this.redis.hget(this.keys.bet(h), 'wallet')));
    return [...new Set(wallets.filter((w): w is Address => !!w))];
  }

  async dueBets(nowMs: number, limit: number): Promise<Hex32[]> {
    return this.redis.zrangebyscore(this.keys.deadlines(), '-inf', String(nowMs), 'LIMIT', 0, limit) as Promise<Hex32[]>;
  }

  /** Drops a bet from the deadline index (it settled, or its record is gone). */
  async forgetDeadline(hash: Hex32): Promise<void> {
    await this.redis.zrem(this.keys.deadlines(), hash);
  }

  async recentPlays(wallet: Address, game: 'dice' | 'sweeper', count: number): Promise<unknown[]> {
    const raw = await this.redis.lrange(this.keys.recentPlays(wallet, game), 0, count - 1);
    return raw.map((r) => JSON.parse(r) as unknown);
  }

  async receipt(receiptId: string): Promise<{ body: string; anchor: string | null } | null> {
    const [body, anchor] = await this.redis.hmget(this.keys.receipt(receiptId), 'body', 'anchor');
    return body ? { body, anchor: anchor ?? null } : null;
  }
}
