// Sweeper on Protocol V1: tickets, choice and cashout turns (each a prepare → commit → reveal), one receipt per ticket.
import { randomBytes } from 'node:crypto';
import { ApiError, gameRejected } from '../schemas/errors.ts';
import { microToNumber } from '../protocol/money.ts';
import { betPayloadHashOf, PROTOCOL_ID, type SweeperBetPayload, type SweeperTurnParams } from '../protocol/bet-payload.ts';
import { SWEEPER_MODES, SWEEPER_ROWS, isSweeperMode, sweeperMineColumn, sweeperMultiplierBps, sweeperPayout, type SweeperMode } from '../protocol/sweeper.ts';
import type { BetRecord } from '../store/bets.ts';
import type { TicketRecord, TicketTurn } from '../store/tickets.ts';
import type { Services } from '../services.ts';
import { ackOf, assertActiveSessionKey, checkCommitBody, checkPrepare, checkReveal, commitBet, committedBetOf, parseWager, playerView, rngValueHex } from './bet-flow.ts';
import { betLogLeafHex, pendingAnchor, sweeperReceiptId, type ReceiptStatus } from './receipts.ts';

export const SWEEPER_GAME_ID = 'sweeper:protocol-v1';

const limitsOf = (services: Services) => ({
  maxBetBps: services.config.MAX_BET_BPS,
  maxPayoutBps: services.config.MAX_PAYOUT_BPS,
  maxExposureBps: services.config.MAX_EXPOSURE_BPS,
});

/** The contract's ticket, plus what a client needs to play the next turn. */
export function ticketView(t: TicketRecord, ackOf?: (hash: string) => unknown) {
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
    pendingTurn: t.pendingTurn ? { status: 'awaiting_reveal' as const, betPayloadHash: t.pendingTurn, ack: ackOf?.(t.pendingTurn) ?? null } : null,
  };
}

async function pendingAck(services: Services, hash: string) {
  const bet = await services.bets.bet(hash);
  return bet ? ackOf(services, bet) : null;
}

async function viewWithAck(services: Services, t: TicketRecord) {
  const ack = t.pendingTurn ? await pendingAck(services, t.pendingTurn) : null;
  return ticketView(t, () => ack);
}

export async function openTicket(services: Services, wallet: string, input: { mode?: unknown; sessionPubkey: string; wager?: unknown }) {
  const wager = parseWager(input.wager);
  if (!isSweeperMode(input.mode)) throw gameRejected('mode must be one of easy, medium, hard', 'bad_mode');
  const mode = input.mode;
  const fullPayout = sweeperPayout(wager, mode, SWEEPER_ROWS);
  const existing = await services.tickets.activeTicketId(wallet);
  if (existing) {
    await assertActiveSessionKey(services, wallet, input.sessionPubkey);
    throw gameRejected(`A ticket is already active (${existing}); finish or cash it out first`, 'ticket_active', { ticketId: existing });
  }
  // No commitment at ticket open: the empty one is never in the used set.
  await checkPrepare(services, wallet, { sessionPubkey: input.sessionPubkey, commitment: '', wager, maxPayout: fullPayout });
  const id = `t_${randomBytes(12).toString('hex')}`;
  const head = (await services.redis.hget(services.keys.rng(), 'head')) ?? '';
  const result = await services.tickets.open(wallet, {
    id, mode, wager, fullPayout, sessionPubkey: input.sessionPubkey, createdAt: services.now().toISOString(), serverSeedHash: head, limits: limitsOf(services),
  });
  if (result.kind === 'err') {
    if (result.reason === 'session_key') throw new ApiError('SESSION_KEY_NOT_AUTHORIZED', 'The session key is not authorized for this wallet (or was revoked)');
    if (result.reason === 'ticket_active') throw gameRejected(`A ticket is already active (${result.detail}); finish or cash it out first`, 'ticket_active', { ticketId: result.detail });
    throw gameRejected(`Ticket rejected (${result.reason})`, result.reason, result.detail ? { limitMicro: result.detail } : {});
  }
  const ticket = await services.tickets.get(id);
  return { ticket: ticketView(ticket!), player: playerView({ ...(await services.ledger.player(wallet)) }) };
}

async function runningTicketOf(services: Services, wallet: string, ticketId: string): Promise<TicketRecord> {
  const ticket = await services.tickets.get(ticketId);
  if (!ticket || ticket.wallet !== wallet) throw gameRejected('No such ticket for this wallet', 'no_ticket');
  if (ticket.status !== 'running') throw gameRejected('The ticket has ended', 'ticket_not_running');
  if (ticket.pendingTurn) throw gameRejected('The previous turn of this ticket still awaits its reveal', 'turn_pending', { betPayloadHash: ticket.pendingTurn });
  return ticket;
}

async function prepareTurn(services: Services, wallet: string, ticket: TicketRecord, commitment: string, sessionPubkey: string, params: SweeperTurnParams) {
  await assertActiveSessionKey(services, wallet, sessionPubkey);
  if (await services.bets.isCommitmentUsed(commitment)) throw gameRejected('This commitment was used before; every turn needs a fresh client seed', 'commitment_used');
  const player = await services.ledger.player(wallet);
  const expiresAtMs = services.now().getTime() + services.config.PREPARE_TTL_MS;
  const betPayload: SweeperBetPayload = {
    protocol: PROTOCOL_ID,
    game: 'sweeper',
    player: services.aliases.of(wallet),
    sessionPubkey,
    betNonce: player.nonce,
    wager: ticket.wager.toString(),
    params,
    commitment,
    expiresAt: new Date(expiresAtMs).toISOString(),
  };
  const betPayloadHash = betPayloadHashOf(betPayload);
  await services.bets.savePrepared(
    betPayloadHash,
    {
      wallet, game: 'sweeper', payload: JSON.stringify(betPayload), wager: ticket.wager, maxPayout: 0n, exposureDelta: 0n,
      sessionPubkey, commitment, betNonce: player.nonce, expiresAtMs, ticketId: ticket.id, turn: params.turn,
    },
    services.config.PREPARE_TTL_MS,
  );
  const mode = ticket.mode as SweeperMode;
  const sweeperParams = {
    ...params,
    columns: SWEEPER_MODES[mode].columns,
    rowsWon: ticket.rowsWon,
    currentPayout: microToNumber(ticket.rowsWon > 0 ? sweeperPayout(ticket.wager, mode, ticket.rowsWon) : 0n),
    payoutIfSafe: params.turn === 'choice' ? microToNumber(sweeperPayout(ticket.wager, mode, ticket.rowsWon + 1)) : null,
  };
  return { betPayload, betPayloadHash, sweeperParams };
}

export async function prepareChoice(
  services: Services,
  wallet: string,
  input: { ticketId: string; commitment: string; sessionPubkey: string; row?: unknown; choiceColumn?: unknown },
) {
  const ticket = await runningTicketOf(services, wallet, input.ticketId);
  const mode = ticket.mode as SweeperMode;
  const { columns } = SWEEPER_MODES[mode];
  if (!Number.isSafeInteger(input.row) || input.row !== ticket.rowsWon) {
    throw gameRejected(`Choices go in row order: the next row is ${ticket.rowsWon}`, 'row_order', { nextRow: ticket.rowsWon });
  }
  if (!Number.isSafeInteger(input.choiceColumn) || (input.choiceColumn as number) < 0 || (input.choiceColumn as number) >= columns) {
    throw gameRejected(`choiceColumn must be an integer in [0, ${columns})`, 'column_range');
  }
  return prepareTurn(services, wallet, ticket, input.commitment, input.sessionPubkey, {
    ticketId: ticket.id, mode, turn: 'choice', row: ticket.rowsWon, choiceColumn: input.choiceColumn as number,
  });
}

export async function prepareCashout(services: Services, wallet: string, input: { ticketId: string; commitment: string; sessionPubkey: string }) {
  const active = await services.tickets.activeTicketId(wallet);
  if (!active || active !== input.ticketId) throw gameRejected('No active ticket to cash out', 'no_active_ticket');
  const ticket = await runningTicketOf(services, wallet, input.ticketId);
  if (ticket.rowsWon < 1) throw gameRejected('A cashout needs at least one cleared row', 'cashout_zero');
  return prepareTurn(services, wallet, ticket, input.commitment, input.sessionPubkey, {
    ticketId: ticket.id, mode: ticket.mode as SweeperMode, turn: 'cashout', rowsWon: ticket.rowsWon,
  });
}

export async function commitSweeper(services: Services, wallet: string, body: { betPayload: unknown; betPayloadHash: string; sessionSignature: string }) {
  const payload = checkCommitBody(body.betPayload, body.betPayloadHash, body.sessionSignature, 'sweeper') as SweeperBetPayload;
  const ack = await commitBet(services, wallet, body.betPayloadHash, body.sessionSignature, payload.params.ticketId);
  const ticket = await services.tickets.get(payload.params.ticketId);
  return {
    status: 'awaiting_reveal' as const,
    betPayloadHash: body.betPayloadHash,
    rngIndex: ack.rngIndex,
    ack,
    revealMessage: ack.revealMessage,
    revealDeadline: ack.revealDeadline,
    ticket: ticket ? ticketView(ticket, () => ack) : null,
  };
}

export interface TurnReveal {
  clientSeedRaw: string;
  revealSignature: string | null;
  via: 'reveal' | 'recovery' | 'wallet-memo';
}

function ticketReceipt(services: Services, ticket: TicketRecord, turns: TicketTurn[], bets: Map<string, BetRecord>, outcome: string, payout: bigint, settledAt: string) {
  const receiptId = sweeperReceiptId(ticket.id);
  const alias = services.aliases.of(ticket.wallet);
  const status: ReceiptStatus = outcome === 'forfeited' ? 'forfeited' : payout > 0n ? 'won' : 'lost';
  const mode = ticket.mode as SweeperMode;
  const rowsWon = turns.filter((t) => t.kind === 'choice' && t.safe).length;
  const acks = new Map(turns.map((t) => [t.betPayloadHash, ackOf(services, bets.get(t.betPayloadHash)!)]));
  const betLogEntry = {
    v: 1,
    receiptId,
    game: 'sweeper',
    gameId: SWEEPER_GAME_ID,
    player: alias,
    ticketId: ticket.id,
    mode,
    turns: turns.map((t) => {
      const bet = bets.get(t.betPayloadHash)!;
      return {
        betPayloadHash: t.betPayloadHash,
        ackHash: acks.get(t.betPayloadHash)!.ackHash,
        rngChainHead: t.rngChainHead,
        rngIndex: t.rngIndex,
        commitment: bet.commitment,
        clientSeedRaw: t.clientSeedRaw,
        kind: t.kind,
        row: t.row,
        choiceColumn: t.choiceColumn,
        mineColumn: t.mineColumn,
      };
    }),
    rowsWon,
    status,
    outcome,
    wager: ticket.wager.toString(),
    payout: payout.toString(),
    settledAt,
  };
  const betLogEntryHash = betLogLeafHex(betLogEntry);
  const receipt = {
    id: receiptId,
    receiptId,
    game: 'sweeper',
    gameId: SWEEPER_GAME_ID,
    player: alias,
    actorAlias: alias,
    source: 'api',
    betAmount: microToNumber(ticket.wager),
    payout: microToNumber(payout),
    profit: microToNumber(payout - ticket.wager),
    status,
    input: {
      ticketId: ticket.id,
      mode,
      wager: microToNumber(ticket.wager),
      wagerMicro: ticket.wager.toString(),
      turns: turns.map((t) => ({ kind: t.kind, row: t.row, choiceColumn: t.choiceColumn, commitment: bets.get(t.betPayloadHash)!.commitment, clientSeedRaw: t.clientSeedRaw })),
    },
    result: {
      outcome,
      rowsWon,
      resultColumns: turns.filter((t) => t.kind === 'choice').map((t) => t.mineColumn),
      multiplierBps: Number(sweeperMultiplierBps(mode, rowsWon)),
      payout: microToNumber(payout),
      payoutMicro: payout.toString(),
    },
    proof: {
      turns: turns.map((t) => ({
        betPayloadHash: t.betPayloadHash,
        ackHash: acks.get(t.betPayloadHash)!.ackHash,
        rngChainHead: t.rngChainHead,
        rngIndex: t.rngIndex,
        rngReveal: t.rngReveal,
      })),
    },
    verifierPayload: {
      version: 1,
      ticketId: ticket.id,
      mode,
      wagerMicro: ticket.wager.toString(),
      turns: turns.map((t) => {
        const bet = bets.get(t.betPayloadHash)!;
        return {
          betPayload: JSON.parse(bet.payload) as unknown,
          betPayloadHash: t.betPayloadHash,
          commitSignature: bet.commitSignature,
          ack: acks.get(t.betPayloadHash)!,
          revealSignature: t.revealSignature,
          clientSeedRaw: t.clientSeedRaw,
          rngReveal: t.rngReveal,
        };
      }),
      betLogEntry,
    },
    anchor: pendingAnchor(betLogEntryHash),
    createdAt: settledAt,
  };
  return { receiptId, receipt, betLogEntry, betLogEntryHash, status };
}

/** Settles one committed turn exactly once; a ticket-ending turn also settles the ticket and writes its receipt. */
export async function settleSweeperTurn(services: Services, bet: BetRecord, reveal: TurnReveal | null) {
  const ticket = await services.tickets.get(bet.ticketId);
  if (!ticket || ticket.wallet !== bet.wallet) throw gameRejected('No such ticket for this wallet', 'no_ticket');
  const payload = JSON.parse(bet.payload) as SweeperBetPayload;
  const mode = ticket.mode as SweeperMode;
  const settledAt = services.now().toISOString();
  const rngReveal = reveal ? rngValueHex(services, bet.rngChainId, bet.rngIndex) : null;
  const params = payload.params;
  let turn: TicketTurn;
  let rowsWon = ticket.rowsWon;
  let outcome = 'running';
  if (!reveal) {
    // No seed by the deadline: the turn busts the ticket, whatever it was.
    turn = { betPayloadHash: bet.hash, kind: params.turn, row: params.turn === 'choice' ? params.row : null, choiceColumn: params.turn === 'choice' ? params.choiceColumn : null, mineColumn: null, safe: null, clientSeedRaw: null, rngIndex: bet.rngIndex, rngChainHead: bet.rngChainHead, rngReveal: null, settledAt, revealSignature: null };
    outcome = 'forfeited';
  } else if (params.turn === 'choice') {
    const mineColumn = sweeperMineColumn({ rngValueHex: rngReveal!, clientSeedRaw: reveal.clientSeedRaw, betPayloadHash: bet.hash, mode });
    const safe = mineColumn !== params.choiceColumn;
    turn = { betPayloadHash: bet.hash, kind: 'choice', row: params.row, choiceColumn: params.choiceColumn, mineColumn, safe, clientSeedRaw: reveal.clientSeedRaw, rngIndex: bet.rngIndex, rngChainHead: bet.rngChainHead, rngReveal, settledAt, revealSignature: reveal.revealSignature };
    if (safe) rowsWon++;
    outcome = !safe ? 'busted' : rowsWon === SWEEPER_ROWS ? 'cleared' : 'running';
  } else {
    turn = { betPayloadHash: bet.hash, kind: 'cashout', row: null, choiceColumn: null, mineColumn: null, safe: null, clientSeedRaw: reveal.clientSeedRaw, rngIndex: bet.rngIndex, rngChainHead: bet.rngChainHead, rngReveal, settledAt, revealSignature: reveal.revealSignature };
    outcome = 'cashed_out';
  }
  const turns = [...ticket.turns, turn];
  const ended = outcome !== 'running';
  const payout = outcome === 'cleared' || outcome === 'cashed_out' ? sweeperPayout(ticket.wager, mode, rowsWon) : 0n;
  const alias = payload.player;
  let receiptPart: ReturnType<typeof ticketReceipt> | null = null;
  if (ended) {
    const bets = new Map<string, BetRecord>();
    for (const t of turns) bets.set(t.betPayloadHash, t.betPayloadHash === bet.hash ? bet : (await services.bets.bet(t.betPayloadHash))!);
    receiptPart = ticketReceipt(services, ticket, turns, bets, outcome, payout, settledAt);
  }
  const endedTicket: TicketRecord = {
    ...ticket, turns, rowsWon, pendingTurn: '', status: ended ? 'settled' : 'running', outcome: ended ? (outcome as TicketRecord['outcome']) : null,
    endedAt: ended ? settledAt : null, payout: ended ? payout : null,
  };
  const turnView = { kind: turn.kind, row: turn.row, choiceColumn: turn.choiceColumn, mineColumn: turn.mineColumn, safe: turn.safe, rngIndex: bet.rngIndex, rngReveal };
  const settlement = {
    betPayloadHash: bet.hash,
    ticketId: ticket.id,
    turn: turnView,
    ack: ackOf(services, bet),
    ticket: ticketView(endedTicket),
    receiptId: receiptPart?.receiptId ?? null,
    betLogEntry: receiptPart?.betLogEntry ?? null,
    betLogEntryHash: receiptPart?.betLogEntryHash ?? null,
  };
  const result = await services.tickets.settleTurn(bet.hash, bet.wallet, ticket.id, {
    settlementJson: JSON.stringify(settlement),
    rowsWon,
    status: ended ? 'settled' : 'running',
    outcome: ended ? outcome : '',
    turns,
    endedAt: ended ? settledAt : '',
    payout,
    houseNet: ticket.wager - payout,
    receiptId: receiptPart?.receiptId ?? sweeperReceiptId(ticket.id),
    receiptJson: receiptPart ? JSON.stringify(receiptPart.receipt) : '',
    leafHashHex: receiptPart?.betLogEntryHash ?? '',
    turnEventJson: JSON.stringify({ game: 'sweeper', player: alias, ticketId: ticket.id, betPayloadHash: bet.hash, ...turnView }),
    ticketEventJson: JSON.stringify({
      game: 'sweeper', player: alias, ticketId: ticket.id, receiptId: receiptPart?.receiptId ?? null, mode, outcome, rowsWon,
      wager: ticket.wager.toString(), payout: payout.toString(), status: receiptPart?.status ?? null,
    }),
    recentJson: JSON.stringify({ ticketId: ticket.id, receiptId: receiptPart?.receiptId ?? null, mode, outcome, rowsWon, wager: microToNumber(ticket.wager), payout: microToNumber(payout), endedAt: settledAt }),
    disclosedIndex: rngReveal ? bet.rngIndex : 0,
    settledAt,
    playJson: JSON.stringify({
      game: 'sweeper', receiptId: receiptPart?.receiptId ?? null, player: alias, source: 'api', status: receiptPart?.status ?? null, outcome,
      wager: microToNumber(ticket.wager), payout: microToNumber(payout), rowsWon, settledAt,
    }),
  });
  if (result.kind === 'err') throw gameRejected('This turn cannot be settled: the ticket is not waiting for it', result.reason);
  return { settlement: result.kind === 'ok' ? settlement : (JSON.parse(result.settlement) as typeof settlement), player: result.player };
}

export async function revealSweeper(services: Services, wallet: string, betPayloadHash: string, clientSeedRaw: string, sessionSignature: string) {
  const bet = await committedBetOf(services, wallet, betPayloadHash, 'sweeper');
  checkReveal(services, bet, clientSeedRaw, sessionSignature);
  const { settlement, player } = await settleSweeperTurn(services, bet, { clientSeedRaw, revealSignature: sessionSignature, via: 'reveal' });
  return { ...settlement, player: playerView(player) };
}

export async function sweeperSession(services: Services, wallet: string) {
  const [player, activeId, recent, head] = await Promise.all([
    services.ledger.player(wallet),
    services.tickets.activeTicketId(wallet),
    services.bets.recentPlays(wallet, 'sweeper', 20),
    services.redis.hget(services.keys.rng(), 'head'),
  ]);
  const active = activeId ? await services.tickets.get(activeId) : null;
  return {
    balance: microToNumber(player.balance),
    nonce: player.nonce,
    serverSeedHash: head ?? null,
    activeTicket: active ? await viewWithAck(services, active) : null,
    recentTickets: recent,
  };
}

export async function readTicket(services: Services, wallet: string, ticketId: string) {
  const ticket = await services.tickets.get(ticketId);
  if (!ticket || ticket.wallet !== wallet) throw new ApiError('NOT_FOUND', 'No such ticket for this wallet');
  return { ticket: await viewWithAck(services, ticket) };
}
