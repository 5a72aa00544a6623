/**
 * Settles archived turns again through the games' own rules, for a ledger restored from an older backup (design §13):
 * the settlement is rebuilt from the committed bet, its archived seed and ack and the time it settled, so the caller
 * can check it against the archive (entry leaf, journal text) before it writes it — with the archived journal entries,
 * never new ones.
 * @module
 */
import type { Ack } from '../protocol/ack.ts';
import type { BetPayload } from '../protocol/bet-payload.ts';
import type { SeedReveal } from '../protocol/receipt.ts';
import type { BetRecord, BetStore, SettleResult, TurnWrite } from '../store/bets.ts';
import type { JournalRecord } from '../store/journal-records.ts';
import type { GameRegistry, IdleClose } from './game.ts';

/** What the archive holds of a turn's settlement. */
export interface ArchivedTurn {
  ack: Ack;
  /** null when the turn settled without a seed (the reveal deadline passed). */
  reveal: SeedReveal | null;
  settledAt: string;
}

export interface TurnReplayerDeps {
  bets: Pick<BetStore, 'settleTurn'>;
  /** The games, built with an `ackOf` that answers the archived acks. */
  games: GameRegistry;
  /** s_index of an operator RNG chain. */
  rngValue: (chainId: number, index: number) => string;
}

export class TurnReplayer {
  constructor(readonly deps: TurnReplayerDeps) {}

  /** The write of one committed turn, rebuilt by its game; nothing is written. */
  async rebuild(bet: BetRecord, turn: ArchivedTurn): Promise<TurnWrite> {
    const outcome = await this.deps.games[bet.game].settleTurn({
      bet,
      payload: JSON.parse(bet.payload) as BetPayload,
      ack: turn.ack,
      reveal: turn.reveal,
      rngReveal: turn.reveal ? this.deps.rngValue(bet.rngChainId, bet.rngIndex) : null,
      settledAt: turn.settledAt,
      source: bet.source,
    });
    return outcome.write;
  }

  /** The idle close of a running ticket (design §10), rebuilt; null when the ticket cannot be closed. */
  async rebuildIdleClose(ticketId: string, settledAt: string): Promise<IdleClose | null> {
    return (await this.deps.games.sweeper.closeIdle?.(ticketId, settledAt)) ?? null;
  }

  /** Writes a rebuilt settlement through the settle script, with the archived journal entries it wrote first. */
  write(bet: Parameters<BetStore['settleTurn']>[0], write: TurnWrite, settledAt: string, entries: readonly JournalRecord[]): Promise<SettleResult> {
    // Live feeds saw this play when it first settled.
    const quiet: TurnWrite = write.end ? Object.assign({}, write, { end: Object.assign({}, write.end, { playJson: '' }) }) : write;
    const idle = bet.hash === '' ? { cutoffMs: Number.MAX_SAFE_INTEGER } : undefined;
    return this.deps.bets.settleTurn(bet, quiet, settledAt, idle, entries);
  }
}
