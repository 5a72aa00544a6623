// What the players were told: every bet they prepared (with its seed) and whether the service acknowledged it.
export type Game = 'dice' | 'sweeper';

/** How a bet reached its settlement, as far as its player saw. */
export type SettledBy = 'play' | 'replayed-reveal' | 'recovery-stored-seed' | 'recovery-local-seed';

export interface BetRecord {
  betPayloadHash: string;
  clientSeedRaw: string;
  game: Game;
  player: number;
  ticketId: string | null;
  /** The round in which the bet was prepared. */
  round: number;
  /** The commit answered 200 with a signed ack. */
  acked: boolean;
  /** The service holds the bet as committed, whether or not its ack reached the player. */
  committed: boolean;
  settledBy: SettledBy | null;
}

export interface TicketRecord {
  ticketId: string;
  player: number;
  round: number;
  /** Found as the wallet's active ticket after a crash swallowed the open's answer. */
  adopted: boolean;
}

export class BetJournal {
  readonly bets = new Map<string, BetRecord>();
  readonly tickets = new Map<string, TicketRecord>();

  prepared(record: Omit<BetRecord, 'acked' | 'committed' | 'settledBy'>): BetRecord {
    const full: BetRecord = { ...record, acked: false, committed: false, settledBy: null };
    this.bets.set(record.betPayloadHash, full);
    return full;
  }

  ticket(ticketId: string, player: number, round: number, adopted = false): void {
    if (!this.tickets.has(ticketId)) this.tickets.set(ticketId, { ticketId, player, round, adopted });
  }

  ofPlayer(player: number): BetRecord[] {
    return [...this.bets.values()].filter((b) => b.player === player);
  }

  acked(round?: number): BetRecord[] {
    return [...this.bets.values()].filter((b) => b.acked && (round === undefined || b.round === round));
  }
}
