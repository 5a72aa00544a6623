// Sweeper rules on Protocol V1 (design §4): a ticket is the play, opened with its stake (the full board must fit the
// limits, but only a turn in flight reserves exposure: its own increment, design §10); each choice or cashout is a
// turn; the turn that ends the ticket writes its one receipt.
import { randomBytes } from 'node:crypto';
import type { Ack } from '../protocol/ack.ts';
import type { Address, Base58Key } from '../protocol/address.ts';
import type { BetPayload, SweeperBetPayload, SweeperTurnParams } from '../protocol/bet-payload.ts';
import { gameRejected, PfwsError, rejectionError } from '../protocol/errors.ts';
import { microToNumber } from '../protocol/money.ts';
import type { PlaySource } from '../protocol/receipt.ts';
import {
  buildSweeperSettlement,
  nextSweeperState,
  resolveSweeperTurn,
  sweeperTicketPayout,
  type SweeperSettlement,
  type SweeperTurnInput,
} from '../protocol/sweeper-receipt.ts';
import {
  isSweeperMode,
  SWEEPER_MODES,
  SWEEPER_ROWS,
  sweeperBanked,
  sweeperMultiplierBps,
  sweeperPayout,
  sweeperTurnExposure,
  type SweeperMode,
} from '../protocol/sweeper.ts';
import type { LimitSettings } from '../protocol/house.ts';
import type { AgentLimitSettings } from '../protocol/agent-limits.ts';
import type { AckSource, BetRecord, BetStore, TurnWrite } from '../store/bets.ts';
import { ticketState, type TicketRecord, type TicketStore, type TicketTurn } from '../store/tickets.ts';
import type { RngStore } from '../store/rng.ts';
import { livePlayJson, type Game, type IdleClose, type PrepareInput, type TurnOutcome, type TurnPlan, type TurnToSettle } from './game.ts';
import { parseWager, playerView, type BetLifecycle } from './lifecycle.ts';

export interface SweeperDeps {
  bets: BetStore;
  tickets: TicketStore;
  rng: RngStore;
  ackOf: (bet: AckSource) => Ack;
  /** The public alias of a wallet: an idle ticket with no turn has no signed payload naming it. */
  aliasOf: (wallet: Address) => string;
  clock: () => Date;
  limits: LimitSettings;
  /** An MCP ticket's stake counts against the agent window at open (design §9). */
  agentLimits: AgentLimitSettings;
}

/** The contract's ticket, plus what a client needs to play the next turn. */
export function ticketView(t: TicketRecord, pendingAck: Ack | null = null) {
  const mode = t.mode as SweeperMode;
  const choices = t.turns.filter((x) => x.kind === 'choice').map((x) => ({ row: x.row, column: x.choiceColumn, safe: x.safe }));
  const current = t.status === 'running' ? (t.rowsWon > 0 ? sweeperPayout(t.wager, mode, t.rowsWon) : 0n) : (t.payout ?? 0n);
  const last = t.turns[t.turns.length - 1];
  const resultColumns = t.turns.filter((x) => x.kind === 'choice').map((x) => x.mineColumn);
  return {
    id: t.id,
    status: t.status,
    outcome: t.outcome,
    mode: t.mode,
    betAmount: microToNumber(t.wager),
    clientSeed: last?.clientSeedRaw ?? '',
    nonce: t.nonce,
    rowsWon: t.rowsWon,
    payout: microToNumber(current),
    multiplierBps: Number(sweeperMultiplierBps(mode, t.rowsWon)),
    fullBoardPayout: microToNumber(t.fullPayout),
    columns: SWEEPER_MODES[mode].columns,
    rows: SWEEPER_ROWS,
    choices,
    // The contract has resultColumns appear on finished tickets; a running one shows the rows revealed so far.
    ...(t.endedAt || resultColumns.some((c) => c !== null) ? { resultColumns } : {}),
    serverSeedHash: t.serverSeedHash,
    createdAt: t.createdAt,
    ...(t.endedAt ? { endedAt: t.endedAt } : {}),
    ...(t.closedBy ? { closedBy: t.closedBy } : {}),
    pendingTurn: t.pendingTurn ? { status: 'awaiting_reveal' as const, betPayloadHash: t.pendingTurn, ack: pendingAck } : null,
  };
}

export class SweeperGame implements Game {
  readonly name = 'sweeper' as const;

  constructor(readonly deps: SweeperDeps) {}

  async #pendingAck(t: TicketRecord): Promise<Ack | null> {
    if (!t.pendingTurn) return null;
    const bet = await this.deps.bets.bet(t.pendingTurn);
    return bet ? this.deps.ackOf(bet) : null;
  }

  async #view(t: TicketRecord) {
    return ticketView(t, await this.#pendingAck(t));
  }

  /** Opens a ticket: one active per wallet; the stake is locked, and the full board must fit maxPayout and maxExposure. */
  async openTicket(lifecycle: BetLifecycle, wallet: Address, input: { mode?: unknown; sessionPubkey: string; wager?: unknown }, source: PlaySource) {
    const { tickets, bets } = this.deps;
    await lifecycle.checkKeySource(wallet, input.sessionPubkey, source);
    const wager = parseWager(input.wager);
    if (!isSweeperMode(input.mode)) throw gameRejected('mode must be one of easy, medium, hard', 'bad_mode');
    const mode = input.mode;
    const fullPayout = sweeperPayout(wager, mode, SWEEPER_ROWS);
    const existing = await tickets.activeTicketId(wallet);
    // No commitment at ticket open: the empty one is never in the used set.
    const preflight = { sessionPubkey: input.sessionPubkey, commitment: '', wager, maxPayout: fullPayout, exposure: 0n };
    if (existing) {
      await lifecycle.preflight(wallet, Object.assign({}, preflight, { locks: 'play' as const }));
      throw rejectionError('ticket_active', existing);
    }
    await lifecycle.preflight(wallet, Object.assign({}, preflight, { locks: 'stake' as const }));
    const id = `t_${randomBytes(12).toString('hex')}`;
    const now = this.deps.clock();
    const result = await tickets.open(wallet, {
      id,
      mode,
      wager,
      fullPayout,
      // Preflight found the key active in the wallet's key set, which holds only keys parsed when they were set up.
      sessionPubkey: input.sessionPubkey as Base58Key,
      createdAt: now.toISOString(),
      serverSeedHash: (await this.deps.rng.head()) ?? '',
      source,
      limits: this.deps.limits,
      agent: this.deps.agentLimits,
      nowMs: now.getTime(),
    });
    if (result.kind === 'err') throw rejectionError(result.reason, result.detail);
    const ticket = await tickets.get(id);
    return { ticket: ticketView(ticket!), player: playerView(await bets.playerTotals(wallet)) };
  }

  async #runningTicket(wallet: Address, ticketId: unknown): Promise<TicketRecord> {
    const ticket = typeof ticketId === 'string' ? await this.deps.tickets.get(ticketId) : null;
    if (!ticket || ticket.wallet !== wallet) throw gameRejected('No such ticket for this wallet', 'no_ticket');
    if (ticket.status !== 'running') throw gameRejected('The ticket has ended', 'ticket_not_running');
    if (ticket.pendingTurn)
      throw gameRejected('The previous turn of this ticket still awaits its reveal', 'turn_pending', { betPayloadHash: ticket.pendingTurn });
    return ticket;
  }

  /** `input.turn` is `choice` (with `row` and `choiceColumn`) or `cashout`. */
  async planTurn(wallet: Address, input: PrepareInput): Promise<TurnPlan> {
    let ticket: TicketRecord;
    let params: SweeperTurnParams;
    if (input.turn === 'cashout') {
      const active = await this.deps.tickets.activeTicketId(wallet);
      if (!active || active !== input.ticketId) throw gameRejected('No active ticket to cash out', 'no_active_ticket');
      ticket = await this.#runningTicket(wallet, input.ticketId);
      if (ticket.rowsWon < 1) throw gameRejected('A cashout needs at least one cleared row', 'cashout_zero');
      params = { ticketId: ticket.id, mode: ticket.mode as SweeperMode, turn: 'cashout', rowsWon: ticket.rowsWon };
    } else {
      ticket = await this.#runningTicket(wallet, input.ticketId);
      const { columns } = SWEEPER_MODES[ticket.mode as SweeperMode];
      if (!Number.isSafeInteger(input.row) || input.row !== ticket.rowsWon) {
        throw gameRejected(`Choices go in row order: the next row is ${ticket.rowsWon}`, 'row_order', { nextRow: ticket.rowsWon });
      }
      const column = input.choiceColumn;
      if (typeof column !== 'number' || !Number.isSafeInteger(column) || column < 0 || column >= columns) {
        throw gameRejected(`choiceColumn must be an integer in [0, ${columns})`, 'column_range');
      }
      params = { ticketId: ticket.id, mode: ticket.mode as SweeperMode, turn: 'choice', row: ticket.rowsWon, choiceColumn: column };
    }
    const mode = ticket.mode as SweeperMode;
    return {
      params,
      wager: ticket.wager,
      locks: 'play',
      maxPayout: 0n,
      exposure: params.turn === 'choice' ? sweeperTurnExposure(ticket.wager, mode, ticket.rowsWon) : 0n,
      ticketId: ticket.id,
      turn: params.turn,
      reply: {
        sweeperParams: Object.assign({}, params, {
          columns: SWEEPER_MODES[mode].columns,
          rowsWon: ticket.rowsWon,
          currentPayout: microToNumber(ticket.rowsWon > 0 ? sweeperPayout(ticket.wager, mode, ticket.rowsWon) : 0n),
          payoutIfSafe: params.turn === 'choice' ? microToNumber(sweeperPayout(ticket.wager, mode, ticket.rowsWon + 1)) : null,
        }),
      },
    };
  }

  checkCommit(): void {}

  playOf(payload: BetPayload): string | undefined {
    return payload.game === 'sweeper' ? payload.params.ticketId : undefined;
  }

  async commitReply(payload: BetPayload, ack: Ack): Promise<Record<string, unknown>> {
    const ticket = payload.game === 'sweeper' ? await this.deps.tickets.get(payload.params.ticketId) : null;
    return { ticket: ticket ? ticketView(ticket, ack) : null };
  }

  async settleTurn(turn: TurnToSettle): Promise<TurnOutcome> {
    const { bet, ack, reveal, rngReveal, settledAt } = turn;
    const { tickets } = this.deps;
    const ticket = await tickets.get(bet.ticketId);
    if (!ticket || ticket.wallet !== bet.wallet) throw gameRejected('No such ticket for this wallet', 'no_ticket');
    const payload = turn.payload as SweeperBetPayload;
    const mode = ticket.mode as SweeperMode;
    const seed = reveal?.clientSeedRaw ?? null;
    const drawn = resolveSweeperTurn({ betPayload: payload, betPayloadHash: bet.hash, clientSeedRaw: seed, rngReveal });
    const { rowsWon, outcome } = nextSweeperState(ticket.rowsWon, drawn, reveal !== null);
    const record: TicketTurn = {
      betPayloadHash: bet.hash,
      ...drawn,
      clientSeedRaw: seed,
      rngIndex: bet.rngIndex,
      rngChainHead: bet.rngChainHead,
      rngReveal,
      settledAt,
      revealSignature: reveal?.revealSignature ?? null,
    };
    const turns = [...ticket.turns, record];
    const ended = outcome !== 'running';
    const payout = sweeperTicketPayout(ticket.wager, mode, outcome, rowsWon);
    const alias = payload.player;
    let receipt: SweeperSettlement | null = null;
    if (ended) {
      receipt = buildSweeperSettlement({
        ticketId: ticket.id,
        mode,
        wager: ticket.wager,
        player: alias,
        source: ticket.source,
        settledAt,
        turns: await this.#turnInputs(turns, bet, ack),
      });
    }
    const endedTicket: TicketRecord = Object.assign({}, ticket, {
      turns,
      rowsWon,
      pendingTurn: '',
      status: ended ? ('settled' as const) : ('running' as const),
      outcome: ended ? (outcome as TicketRecord['outcome']) : null,
      endedAt: ended ? settledAt : null,
      payout: ended ? payout : null,
    });
    const turnView = {
      kind: record.kind,
      row: record.row,
      choiceColumn: record.choiceColumn,
      mineColumn: record.mineColumn,
      safe: record.safe,
      rngIndex: bet.rngIndex,
      rngReveal,
    };
    const reply = {
      betPayloadHash: bet.hash,
      ticketId: ticket.id,
      turn: turnView,
      ack,
      ticket: ticketView(endedTicket),
      receiptId: receipt?.receiptId ?? null,
      betLogEntry: receipt?.betLogEntry ?? null,
      betLogEntryHash: receipt?.betLogEntryHash ?? null,
    };
    return {
      reply,
      write: {
        settlement: JSON.stringify(reply),
        disclosedIndex: rngReveal ? bet.rngIndex : 0,
        turnEvent: {
          type: 'sweeper_turn_settled',
          json: JSON.stringify({ game: 'sweeper', player: alias, ticketId: ticket.id, betPayloadHash: bet.hash, ...turnView }),
        },
        play: {
          status: ended ? 'settled' : 'running',
          outcome: ended ? outcome : '',
          banked: ended ? 0n : sweeperBanked(ticket.wager, mode, rowsWon),
          state: ticketState(rowsWon, turns),
        },
        end: receipt && this.#endWrite(ticket, receipt, alias, settledAt),
      },
    };
  }

  /** Every turn of a ticket as its receipt lists it, from the stored bets (`current` is the turn settling now). */
  async #turnInputs(turns: readonly TicketTurn[], current: BetRecord | null, currentAck: Ack | null): Promise<SweeperTurnInput[]> {
    const records = await Promise.all(
      turns.map(async (t) => (current && t.betPayloadHash === current.hash ? current : (await this.deps.bets.bet(t.betPayloadHash))!)),
    );
    return turns.map((t, i) => ({
      betPayload: JSON.parse(records[i]!.payload) as SweeperBetPayload,
      betPayloadHash: t.betPayloadHash,
      commitSignature: records[i]!.commitSignature,
      ack: currentAck && current && t.betPayloadHash === current.hash ? currentAck : this.deps.ackOf(records[i]!),
      clientSeedRaw: t.clientSeedRaw,
      revealSignature: t.revealSignature,
      rngReveal: t.rngReveal,
    }));
  }

  /** What the ledger writes when a ticket ends: the stake released, the payout, the receipt, the journal and feeds. */
  #endWrite(ticket: TicketRecord, receipt: SweeperSettlement, alias: string, settledAt: string): NonNullable<TurnWrite['end']> {
    const { receiptId, status, outcome, rowsWon, payout, closedBy } = receipt;
    const closed = closedBy ? { closedBy } : {};
    const event = {
      type: 'ticket_settled',
      json: JSON.stringify({
        game: 'sweeper',
        player: alias,
        ticketId: ticket.id,
        receiptId,
        mode: ticket.mode,
        outcome,
        rowsWon,
        wager: ticket.wager.toString(),
        payout: payout.toString(),
        status,
        source: ticket.source,
        ...closed,
      }),
    };
    return {
      payout,
      houseNet: ticket.wager - payout,
      // An expired ticket got its stake back: not a win.
      won: payout > 0n && outcome !== 'expired',
      receiptId,
      receiptJson: JSON.stringify(receipt.receipt),
      leafHashHex: receipt.betLogEntryHash,
      entryJson: receipt.betLogEntryJcs,
      event,
      recentJson: JSON.stringify({
        ticketId: ticket.id,
        receiptId,
        mode: ticket.mode,
        outcome,
        rowsWon,
        wager: microToNumber(ticket.wager),
        payout: microToNumber(payout),
        endedAt: settledAt,
        source: ticket.source,
        ...closed,
      }),
      playJson: livePlayJson(event, settledAt),
    };
  }

  /**
   * Design §10: a running ticket with no turn in flight closes as idle, cashed out at its current payout after a won
   * row, or expired with its stake back before any. The ledger's settle script re-checks that it is still idle.
   * @returns null when the ticket is not running or has a turn in flight
   */
  async closeIdle(ticketId: string, settledAt: string): Promise<IdleClose | null> {
    const ticket = await this.deps.tickets.get(ticketId);
    if (ticket?.status !== 'running' || ticket.pendingTurn) return null;
    const turns = await this.#turnInputs(ticket.turns, null, null);
    const alias = turns[0]?.betPayload.player ?? this.deps.aliasOf(ticket.wallet);
    const receipt = buildSweeperSettlement({
      ticketId: ticket.id,
      mode: ticket.mode as SweeperMode,
      wager: ticket.wager,
      player: alias,
      source: ticket.source,
      settledAt,
      turns,
      closedBy: 'idle',
    });
    const endedTicket: TicketRecord = Object.assign({}, ticket, {
      status: 'settled' as const,
      outcome: receipt.outcome as TicketRecord['outcome'],
      closedBy: 'idle' as const,
      endedAt: settledAt,
      payout: receipt.payout,
    });
    const reply = {
      ticketId: ticket.id,
      closedBy: 'idle' as const,
      ticket: ticketView(endedTicket),
      receiptId: receipt.receiptId,
      betLogEntry: receipt.betLogEntry,
      betLogEntryHash: receipt.betLogEntryHash,
    };
    return {
      wallet: ticket.wallet,
      outcome: {
        reply,
        write: {
          settlement: JSON.stringify(reply),
          disclosedIndex: 0,
          turnEvent: null,
          play: { status: 'settled', outcome: receipt.outcome, banked: 0n, state: ticketState(ticket.rowsWon, ticket.turns) },
          closedBy: 'idle',
          end: this.#endWrite(ticket, receipt, alias, settledAt),
        },
      },
    };
  }

  async storedReply(_bet: BetRecord, stored: string): Promise<Record<string, unknown>> {
    return JSON.parse(stored) as Record<string, unknown>;
  }

  async session(wallet: Address) {
    const { bets, tickets } = this.deps;
    const [player, activeId, recent, head] = await Promise.all([
      bets.playerTotals(wallet),
      tickets.activeTicketId(wallet),
      bets.recentPlays(wallet, 'sweeper', 20),
      this.deps.rng.head(),
    ]);
    const active = activeId ? await tickets.get(activeId) : null;
    return {
      balance: microToNumber(player.balance),
      nonce: player.nonce,
      serverSeedHash: head ?? null,
      activeTicket: active ? await this.#view(active) : null,
      recentTickets: recent,
    };
  }

  async ticket(wallet: Address, ticketId: string) {
    const ticket = await this.deps.tickets.get(ticketId);
    if (!ticket || ticket.wallet !== wallet) throw new PfwsError('NOT_FOUND', 'No such ticket for this wallet');
    return { ticket: await this.#view(ticket) };
  }
}
