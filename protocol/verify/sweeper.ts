// The Sweeper receipt checker: every turn of the ticket verified, the board replayed, the payout recomputed.
import { SWEEPER_MODES, SWEEPER_ROWS, isSweeperMode, sweeperMineColumn, sweeperPayout } from '../sweeper.ts';
import type { SweeperBetPayload } from '../bet-payload.ts';
import type { Checks } from './report.ts';
import { checkTurn, isRecord, type TurnContext } from './turn.ts';
import { agree, agreeAmounts, entryLeafHex, type RngUse } from './entry.ts';
import type { GameCheck } from './dice.ts';

export const SWEEPER_GAME_ID = 'sweeper:protocol-v1';

type Outcome = 'running' | 'busted' | 'cleared' | 'cashed_out' | 'forfeited' | 'expired';

/** Checks a Sweeper ticket receipt's game part; the caller checks the anchor. */
export function checkSweeperReceipt(receipt: Record<string, unknown>, ctx: TurnContext, checks: Checks): GameCheck {
  const vp = receipt.verifierPayload;
  if (!isRecord(vp) || !Array.isArray(vp.turns)) {
    checks.fail('verifier-payload', 'the receipt has no verifierPayload with turns');
    return { leafHex: null, rngUses: [] };
  }
  const entry = isRecord(vp.betLogEntry) ? vp.betLogEntry : null;
  const leafHex = entryLeafHex(vp.betLogEntry);
  const mode = vp.mode;
  if (receipt.gameId !== SWEEPER_GAME_ID || !isSweeperMode(mode) || typeof vp.wagerMicro !== 'string' || typeof vp.ticketId !== 'string') {
    checks.fail('game', 'not a Protocol V1 Sweeper ticket (gameId, mode, wagerMicro or ticketId)');
    return { leafHex, rngUses: [] };
  }
  checks.pass('game');
  let wager: bigint;
  try {
    wager = BigInt(vp.wagerMicro);
    if (wager <= 0n) throw new RangeError('wager');
  } catch {
    checks.fail('outcome', 'wagerMicro is not a positive micro-USDC integer string');
    return { leafHex, rngUses: [] };
  }
  const { columns } = SWEEPER_MODES[mode];
  const rngUses: RngUse[] = [];
  const replayed: Record<string, unknown>[] = [];
  let rowsWon = 0;
  let outcome: Outcome = 'running';
  let lastNonce = -1;
  const turns = vp.turns as unknown[];
  for (let k = 0; k < turns.length; k++) {
    const prefix = `turn[${k}].`;
    const t = turns[k];
    if (!isRecord(t)) {
      checks.fail(`${prefix}payload-hash`, 'the turn is not an object');
      return { leafHex, rngUses };
    }
    if (outcome !== 'running') checks.fail(`${prefix}order`, `a turn follows the end of the ticket (${outcome})`);
    const facts = checkTurn(
      {
        betPayload: t.betPayload,
        betPayloadHash: t.betPayloadHash,
        commitSignature: t.commitSignature,
        ack: t.ack,
        revealSignature: t.revealSignature,
        clientSeedRaw: t.clientSeedRaw,
        rngReveal: t.rngReveal,
      },
      ctx,
      checks,
      prefix,
      entry?.settledAt,
    );
    if (!facts) return { leafHex, rngUses };
    rngUses.push({ head: facts.ack.rngChainHead, index: facts.ack.rngIndex });
    const payload = facts.payload as SweeperBetPayload;
    const params = isRecord(payload.params) ? payload.params : ({} as Record<string, unknown>);
    const bound =
      payload.game === 'sweeper' && params.ticketId === vp.ticketId && params.mode === mode && payload.wager === vp.wagerMicro && payload.betNonce > lastNonce;
    checks.add(`${prefix}ticket-binding`, bound, 'the turn payload is not bound to this ticket (game, ticketId, mode, wager or nonce order)');
    lastNonce = payload.betNonce;
    const revealed = facts.seed !== null && facts.rngReveal !== null;
    let mineColumn: number | null = null;
    if (params.turn === 'choice') {
      const column = params.choiceColumn;
      const legal = params.row === rowsWon && Number.isSafeInteger(column) && (column as number) >= 0 && (column as number) < columns;
      checks.add(`${prefix}rules`, legal, `a choice must name row ${rowsWon} and a column in [0, ${columns})`);
      if (!revealed) outcome = 'forfeited';
      else {
        mineColumn = sweeperMineColumn({ rngValueHex: facts.rngReveal as string, clientSeedRaw: facts.seed as string, betPayloadHash: facts.hash, mode });
        if (mineColumn === column) outcome = 'busted';
        else if (++rowsWon === SWEEPER_ROWS) outcome = 'cleared';
      }
    } else if (params.turn === 'cashout') {
      checks.add(`${prefix}rules`, params.rowsWon === rowsWon && rowsWon >= 1, 'a cashout must name the cleared rows, at least one');
      outcome = revealed ? 'cashed_out' : 'forfeited';
    } else {
      checks.fail(`${prefix}rules`, 'the turn is neither a choice nor a cashout');
      return { leafHex, rngUses };
    }
    replayed.push({
      betPayloadHash: facts.hash,
      ackHash: facts.ack.ackHash,
      rngChainHead: facts.ack.rngChainHead,
      rngIndex: facts.ack.rngIndex,
      commitment: payload.commitment,
      clientSeedRaw: facts.seed,
      kind: params.turn,
      row: params.turn === 'choice' ? params.row : null,
      choiceColumn: params.turn === 'choice' ? params.choiceColumn : null,
      mineColumn,
    });
  }
  // Design §10: a running ticket left idle is closed by the deadline worker, cashed out after a won row, or expired
  // with its stake back before any (no randomness was drawn).
  const closedBy = vp.closedBy;
  if (closedBy !== undefined) {
    const closable = closedBy === 'idle' && outcome === 'running';
    checks.add('closed-by', closable, `closedBy ${JSON.stringify(closedBy)} names no idle close of a running ticket`);
    if (closable) outcome = rowsWon >= 1 ? 'cashed_out' : 'expired';
  }
  checks.add('ticket-ended', outcome !== 'running', "the receipt's turns do not end the ticket");
  const payout = outcome === 'cleared' || outcome === 'cashed_out' ? sweeperPayout(wager, mode, rowsWon) : outcome === 'expired' ? wager : 0n;
  const status = outcome === 'forfeited' || outcome === 'expired' ? outcome : payout > 0n ? 'won' : 'lost';
  const firstPayload = (turns[0] as Record<string, unknown> | undefined)?.betPayload as Record<string, unknown> | undefined;
  // A ticket that expired before its first turn has no signed payload: its alias is only the receipt's.
  const player = firstPayload ?? (turns.length === 0 ? { player: receipt.player } : undefined);
  const result = isRecord(receipt.result) ? receipt.result : {};
  const resultColumns = replayed.filter((t) => t.kind === 'choice').map((t) => t.mineColumn);
  agree(checks, 'outcome', 'the recorded outcome differs from the replayed board', [
    ['result.outcome', result.outcome, outcome],
    ['result.rowsWon', result.rowsWon, rowsWon],
    ['result.resultColumns', result.resultColumns, resultColumns],
    ['status', receipt.status, status],
    ['closedBy', receipt.closedBy, closedBy],
  ]);
  agreeAmounts(checks, receipt, result, wager, payout);
  if (!entry) {
    checks.fail('bet-log-entry', 'verifierPayload.betLogEntry is missing');
    return { leafHex, rngUses };
  }
  agree(checks, 'bet-log-entry', 'the bet-log entry does not match the verified ticket', [
    ['receiptId', entry.receiptId, receipt.id],
    ['game', entry.game, 'sweeper'],
    ['gameId', entry.gameId, SWEEPER_GAME_ID],
    ['player', entry.player, player?.player],
    ['ticketId', entry.ticketId, vp.ticketId],
    ['mode', entry.mode, mode],
    ['turns', entry.turns, replayed],
    ['rowsWon', entry.rowsWon, rowsWon],
    ['status', entry.status, status],
    ['outcome', entry.outcome, outcome],
    ['closedBy', entry.closedBy, closedBy],
    ['wager', entry.wager, vp.wagerMicro],
    ['payout', entry.payout, payout.toString()],
  ]);
  agree(checks, 'receipt-fields', 'the receipt shows values other than the verified ones', [
    ['player', receipt.player, player?.player],
    ['actorAlias', receipt.actorAlias, player?.player],
    ['receiptId', receipt.receiptId, receipt.id],
  ]);
  return { leafHex, rngUses };
}
