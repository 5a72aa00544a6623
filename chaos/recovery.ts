// Recovery as the README's "Playing" section tells a client: read the sessions, fetch each pending bet's stored
// seed, reveal the original bet; never a new wager. Then a ticket left open is played to its end.
import type { ChaosPlayer } from './load.ts';
import { StepError } from './load.ts';
import { sleep } from './ports.ts';

export interface RecoveryOutcome {
  revealedStoredSeed: number;
  revealedLocalSeed: number;
  /** Pending bets whose seed neither the service nor the player knew: unrecoverable. */
  unknownSeed: string[];
  /** Committed bets whose ack never reached the player (the crash came between commit and answer). */
  committedWithoutAck: number;
  adoptedTickets: number;
  /** Commits, recovery seeds and reveals sent again after they got no answer. */
  replays: number;
  /** Replays that did not answer 200: the contract says they resolve the same bet. */
  replayFailures: string[];
  failures: string[];
}

/** Retries a step that fails for want of a service (no answer, or a 5xx) until `budgetMs` is spent. */
export async function retrying<T>(step: () => Promise<T>, budgetMs = 30_000): Promise<T> {
  const deadline = Date.now() + budgetMs;
  for (;;) {
    try {
      return await step();
    } catch (err) {
      const transient = err instanceof StepError && (err.kind === 'network' || (err.status ?? 0) >= 500);
      if (!transient || Date.now() > deadline) throw err;
      await sleep(200);
    }
  }
}

type Pending = { betPayloadHash: string; ack: { revealMessage: string } | null };

async function revealPending(player: ChaosPlayer, game: 'dice' | 'sweeper', pending: Pending, out: RecoveryOutcome): Promise<any> {
  const hash = pending.betPayloadHash;
  const stored = await retrying(() => player.call('GET', `/protocol/v1/${game}/recovery-seed?betPayloadHash=${hash}`));
  const local = player.journal.bets.get(hash);
  let seed: string | null = null;
  let source: 'recovery-stored-seed' | 'recovery-local-seed' = 'recovery-stored-seed';
  if (stored.status === 200) seed = stored.body.clientSeedRaw;
  else if (local) {
    seed = local.clientSeedRaw;
    source = 'recovery-local-seed';
  }
  if (!seed) {
    out.unknownSeed.push(hash);
    return null;
  }
  if (local && !local.acked) out.committedWithoutAck++;
  if (local) local.committed = true;
  const revealMessage = pending.ack?.revealMessage ?? (stored.status === 200 ? stored.body.ack?.revealMessage : undefined);
  if (!revealMessage) {
    out.failures.push(`${game} bet ${hash}: pending without an ack to sign`);
    return null;
  }
  const reveal = await retrying(() =>
    player.must('POST', `/protocol/v1/${game}/reveal`, { betPayloadHash: hash, clientSeedRaw: seed, sessionSignature: player.signText(revealMessage) }),
  );
  if (local) local.settledBy = source;
  if (source === 'recovery-stored-seed') {
    out.revealedStoredSeed++;
    player.ctx.stats.recoveredStoredSeed++;
  } else {
    out.revealedLocalSeed++;
    player.ctx.stats.recoveredLocalSeed++;
  }
  return reveal;
}

/** Sends the request that got no answer again, exactly as it was: it must resolve the same bet. */
async function replayInflight(player: ChaosPlayer, out: RecoveryOutcome): Promise<void> {
  const inflight = player.inflight;
  if (!inflight) return;
  const body = inflight.body as { betPayloadHash: string };
  const bet = player.journal.bets.get(body.betPayloadHash);
  const res = await retrying(async () => {
    const r = await player.call('POST', inflight.path, inflight.body);
    if (r.status >= 500) throw new StepError('status', `${inflight.path}: ${r.status}`, r.status);
    return r;
  });
  out.replays++;
  player.ctx.stats.replayed++;
  player.inflight = null;
  if (res.status !== 200) {
    out.replayFailures.push(`${inflight.path} ${body.betPayloadHash.slice(0, 16)}…: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    return;
  }
  if (!bet) return;
  if (inflight.path.endsWith('/commit')) {
    if (res.body.ack?.betPayloadHash !== bet.betPayloadHash) out.replayFailures.push(`${inflight.path}: the ack names ${String(res.body.ack?.betPayloadHash)}`);
    if (!bet.acked) player.ctx.stats.acked++;
    bet.acked = bet.committed = true;
  } else if (inflight.path.endsWith('/reveal')) {
    bet.settledBy ??= 'replayed-reveal';
    if (bet.game === 'sweeper') player.applyTicket(res.body.ticket);
  }
}

/** Replays the request that got no answer, reveals every pending Dice bet and Sweeper turn, takes over the open ticket. */
export async function recoverPlayer(player: ChaosPlayer, out: RecoveryOutcome): Promise<void> {
  try {
    await replayInflight(player, out);
    const dice = await retrying(() => player.must('GET', '/protocol/v1/dice/session'));
    for (const pending of dice.pendingBets as Pending[]) await revealPending(player, 'dice', pending, out);
    const sweeper = await retrying(() => player.must('GET', '/protocol/v1/sweeper/session'));
    let ticket = sweeper.activeTicket;
    if (ticket && !player.journal.tickets.has(ticket.id)) {
      player.journal.ticket(ticket.id, player.index, player.ctx.round, true);
      out.adoptedTickets++;
    }
    if (ticket?.pendingTurn) {
      const reveal = await revealPending(player, 'sweeper', ticket.pendingTurn as Pending, out);
      if (reveal) ticket = reveal.ticket;
    }
    player.applyTicket(ticket);
    player.parked = false;
    player.lastError = null;
  } catch (err) {
    out.failures.push(`player ${player.index}: ${(err as Error).message}`);
  }
}

/** Plays the player's open ticket to its end: a cashout once a row is won, otherwise the next row. */
export async function finishTicket(player: ChaosPlayer, out: RecoveryOutcome): Promise<void> {
  let attempts = 0;
  while (player.ticket) {
    try {
      await player.turn(player.ticket.rowsWon >= 1 ? 'cashout' : 'choice');
    } catch (err) {
      // A turn cut short may still be committed: recover it before another try, never prepare over it.
      if (++attempts > 5) {
        out.failures.push(`player ${player.index} finishing ticket: ${(err as Error).message}`);
        return;
      }
      await sleep(200);
      await recoverPlayer(player, out);
    }
  }
}

export const emptyRecovery = (): RecoveryOutcome => ({
  revealedStoredSeed: 0,
  revealedLocalSeed: 0,
  unknownSeed: [],
  committedWithoutAck: 0,
  adoptedTickets: 0,
  replays: 0,
  replayFailures: [],
  failures: [],
});

export async function recoverAll(players: readonly ChaosPlayer[]): Promise<RecoveryOutcome> {
  const out = emptyRecovery();
  await Promise.all(players.map((p) => recoverPlayer(p, out)));
  return out;
}
