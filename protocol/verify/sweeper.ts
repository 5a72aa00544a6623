// The Sweeper receipt checker: every turn of the ticket verified and bound to it, the rules replayed,
// then the receipt and its bet-log entry rebuilt through protocol/sweeper-receipt.ts and compared.
import { SWEEPER_MODES, isSweeperMode } from '../sweeper.ts';
import type { SweeperBetPayload } from '../bet-payload.ts';
import { SWEEPER_GAME_ID } from '../receipt.ts';
import { buildSweeperSettlement, nextSweeperState, resolveSweeperTurn, type SweeperTurnInput } from '../sweeper-receipt.ts';
import type { Checks } from './report.ts';
import { checkTurn, isRecord, type TurnContext } from './turn.ts';
import { compareRebuilt } from './rebuild.ts';
import { sourceOf, type GameCheck } from './dice.ts';
import { MAX_SWEEPER_TURNS } from './bounds.ts';

export { SWEEPER_GAME_ID };

/** Checks a Sweeper ticket receipt's game part; the caller checks the anchor, the RNG links and the session keys. */
export function checkSweeperReceipt(receipt: Record<string, unknown>, ctx: TurnContext, checks: Checks): GameCheck {
  const found: GameCheck = { leafHex: null, rngLinks: [], rngUses: [], sessionKeys: [] };
  const vp = receipt.verifierPayload;
  // Design §10: a ticket left idle before its first turn is closed with no turn at all.
  const closedBy = isRecord(vp) ? vp.closedBy : undefined;
  const minTurns = closedBy === 'idle' ? 0 : 1;
  if (!isRecord(vp) || !Array.isArray(vp.turns) || vp.turns.length < minTurns || vp.turns.length > MAX_SWEEPER_TURNS) {
    checks.fail('verifier-payload', `the receipt has no verifierPayload with ${minTurns}…${MAX_SWEEPER_TURNS} turns`);
    return found;
  }
  if (closedBy !== undefined && closedBy !== 'idle') {
    checks.fail('closed-by', `closedBy ${JSON.stringify(closedBy)} names no known way to close a ticket`);
    return found;
  }
  const entry = isRecord(vp.betLogEntry) ? vp.betLogEntry : null;
  const mode = vp.mode;
  if (receipt.gameId !== SWEEPER_GAME_ID || !isSweeperMode(mode) || typeof vp.wagerMicro !== 'string' || typeof vp.ticketId !== 'string') {
    checks.fail('game', 'not a Protocol V1 Sweeper ticket (gameId, mode, wagerMicro or ticketId)');
    return found;
  }
  checks.pass('game');
  let wager: bigint;
  try {
    wager = BigInt(vp.wagerMicro);
    if (wager <= 0n) throw new RangeError('wager');
  } catch {
    checks.fail('outcome', 'wagerMicro is not a positive micro-USDC integer string');
    return found;
  }
  const { columns } = SWEEPER_MODES[mode];
  const turns: SweeperTurnInput[] = [];
  let rowsWon = 0;
  let ended: string | null = null;
  let lastNonce = -1;
  // A ticket that expired before its first turn has no signed payload: its alias is only the receipt's.
  let player: unknown = vp.turns.length === 0 ? receipt.player : undefined;
  for (let k = 0; k < vp.turns.length; k++) {
    const prefix = `turn[${k}].` as const;
    const t = vp.turns[k];
    if (!isRecord(t)) {
      checks.fail(`${prefix}payload-hash`, 'the turn is not an object');
      return found;
    }
    if (ended) checks.fail(`${prefix}order`, `a turn follows the end of the ticket (${ended})`);
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
    if (!facts) return found;
    if (facts.rngLink) found.rngLinks.push(facts.rngLink);
    if (facts.rngUse) found.rngUses.push(facts.rngUse);
    found.sessionKeys.push(facts.sessionKey);
    const payload = facts.payload as SweeperBetPayload;
    const params = isRecord(payload.params) ? payload.params : ({} as Record<string, unknown>);
    if (k === 0) player = payload.player;
    const bound =
      payload.game === 'sweeper' &&
      params.ticketId === vp.ticketId &&
      params.mode === mode &&
      payload.wager === vp.wagerMicro &&
      payload.player === player &&
      Number.isSafeInteger(payload.betNonce) &&
      payload.betNonce > lastNonce;
    checks.add(`${prefix}ticket-binding`, bound, 'the turn payload is not bound to this ticket (game, ticketId, mode, wager, player or nonce order)');
    lastNonce = payload.betNonce;
    if (params.turn === 'choice') {
      const column = params.choiceColumn;
      const legal = params.row === rowsWon && Number.isSafeInteger(column) && (column as number) >= 0 && (column as number) < columns;
      checks.add(`${prefix}rules`, legal, `a choice must name row ${rowsWon} and a column in [0, ${columns})`);
    } else if (params.turn === 'cashout') {
      checks.add(`${prefix}rules`, params.rowsWon === rowsWon && rowsWon >= 1, 'a cashout must name the cleared rows, at least one');
    } else {
      checks.fail(`${prefix}rules`, 'the turn is neither a choice nor a cashout');
      return found;
    }
    const input: SweeperTurnInput = {
      betPayload: payload,
      betPayloadHash: facts.hash,
      commitSignature: String(t.commitSignature),
      ack: facts.ack,
      clientSeedRaw: facts.seed,
      revealSignature: facts.revealSignature,
      rngReveal: facts.rngReveal,
    };
    turns.push(input);
    if (!ended) {
      const state = nextSweeperState(rowsWon, resolveSweeperTurn(input), facts.seed !== null && facts.rngReveal !== null);
      rowsWon = state.rowsWon;
      if (state.outcome !== 'running') ended = state.outcome;
    }
  }
  if (closedBy === 'idle') {
    // The deadline worker closes a running ticket: cashed out after a won row, expired with its stake back before.
    checks.add('closed-by', ended === null, `an idle close names a ticket its turns already ended (${ended})`);
    if (ended === null) ended = rowsWon >= 1 ? 'cashed_out' : 'expired';
  }
  checks.add('ticket-ended', ended !== null, "the receipt's turns do not end the ticket");
  const source = sourceOf(receipt);
  const settledAt = entry?.settledAt;
  if (!source || typeof settledAt !== 'string' || typeof player !== 'string' || !ended) {
    if (ended) checks.fail('receipt-fields', !source ? 'source is neither api nor mcp' : 'the bet-log entry has no settledAt');
    return found;
  }
  let rebuilt: ReturnType<typeof buildSweeperSettlement>;
  try {
    rebuilt = buildSweeperSettlement({ ticketId: vp.ticketId, mode, wager, player, source, turns, settledAt, ...(closedBy === 'idle' ? { closedBy } : {}) });
  } catch (err) {
    checks.fail('outcome', `the ticket cannot be replayed: ${(err as Error).message}`);
    return found;
  }
  compareRebuilt(checks, receipt, rebuilt.receipt as unknown as Record<string, unknown>);
  return Object.assign(found, { leafHex: rebuilt.betLogEntryHash });
}
