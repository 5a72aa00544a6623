// Steps every round shares: fresh figures, the time until a bet goes through again, and the recovery pass.
import type { RoundHarness } from '../harness.ts';
import { emptyStats, type ChaosPlayer } from '../load.ts';
import { recoverAll, recoverPlayer, emptyRecovery, type RecoveryOutcome } from '../recovery.ts';
import { conservation } from '../books.ts';
import { emptyFigures, type Check, type RoundReport } from '../report.ts';
import { sleep } from '../ports.ts';
import { retrying } from '../recovery.ts';

export function beginRound(h: RoundHarness, round: number, kind: string, tried: string): RoundReport {
  h.ctx.round = round;
  h.ctx.stats = emptyStats();
  h.log(`round ${round}: ${tried}`);
  return { round, kind, tried, figures: emptyFigures(), checks: [], notes: [] };
}

/** Milliseconds from `since` until the probe player completes a dice bet; null if it never does within `timeoutMs`. */
// Generous: on a shared 2-core machine an API process has been seen to take 90 s to start.
export async function timeToFirstBet(h: RoundHarness, since: number, timeoutMs = 240_000): Promise<number | null> {
  const scratch = emptyRecovery();
  while (Date.now() - since < timeoutMs) {
    try {
      await h.probe.diceBet();
      return Date.now() - since;
    } catch {
      await sleep(100);
    }
  }
  await recoverPlayer(h.probe, scratch);
  return null;
}

/** Every player's sessions show nothing pending. */
async function nothingPending(players: readonly ChaosPlayer[]): Promise<Check> {
  const left: string[] = [];
  await Promise.all(
    players.map(async (p) => {
      const dice = await retrying(() => p.must('GET', '/protocol/v1/dice/session'));
      const sweeper = await retrying(() => p.must('GET', '/protocol/v1/sweeper/session'));
      if (dice.pendingBets.length) left.push(`player ${p.index}: ${dice.pendingBets.length} dice bets`);
      if (sweeper.activeTicket?.pendingTurn) left.push(`player ${p.index}: a Sweeper turn`);
    }),
  );
  return {
    name: 'recovery: nothing left pending',
    held: left.length === 0,
    detail: left.length ? left.join('; ') : `${players.length} players, no pending bet`,
  };
}

export function recoveryChecks(out: RecoveryOutcome): Check[] {
  return [
    {
      name: 'replay safety: a commit, recovery seed or reveal sent again after a lost answer resolves the same bet',
      held: out.replayFailures.length === 0,
      detail: out.replayFailures.length
        ? `${out.replayFailures.length} of ${out.replays} failed: ${out.replayFailures.slice(0, 3).join(' | ')}`
        : `${out.replays} replayed`,
    },
    {
      name: 'recovery: every pending bet revealed from a known seed',
      held: out.unknownSeed.length === 0 && out.failures.length === 0,
      detail:
        out.unknownSeed.length || out.failures.length
          ? `${out.unknownSeed.length} with no seed; ${out.failures.slice(0, 3).join(' | ')}`
          : `${out.revealedStoredSeed} from stored seeds, ${out.revealedLocalSeed} from the player's own copy, ${out.committedWithoutAck} committed without an ack, ${out.adoptedTickets} tickets taken over`,
    },
  ];
}

export const isResendAnswer = (r: { path: string; code?: string; reason?: string }): boolean =>
  (r.path === '/protocol/v1/sweeper/ticket' && r.reason === 'ticket_active') || (r.path === '/wallet/session' && r.code === 'WALLET_SESSION_REJECTED');

/** Stops the load, recovers every player, and checks that nothing is left pending and the books balance. */
export async function endRound(h: RoundHarness, report: RoundReport): Promise<RoundReport> {
  await h.load.stop();
  const out = await recoverAll(h.allPlayers);
  report.checks.push(...recoveryChecks(out));
  report.checks.push(await nothingPending(h.allPlayers));
  report.checks.push(
    ...(await conservation({ api: h.service.api, rpcUrl: h.service.rpcUrl, players: h.allPlayers, redis: h.redisClient, houseKey: h.keys.house() })),
  );
  const s = h.ctx.stats;
  report.checks.push({
    name: 'no INTERNAL (500) answers',
    held: s.status500 === 0,
    detail: s.status500
      ? `${s.status500} of ${s.requests}: ${s.samples
          .filter((x) => x.startsWith('500'))
          .slice(0, 2)
          .join(' | ')}`
      : `${s.requests} requests`,
  });
  report.figures = {
    ...report.figures,
    acked: s.acked,
    settled: s.settled,
    recovered: s.recoveredStoredSeed + s.recoveredLocalSeed + s.replayed,
    status5xx: s.status5xx,
    requests: s.requests,
  };
  // What a Redis command run twice looks like to a player (redis-resend): its own new ticket reported as
  // already active, its own challenge as already used.
  const resent = s.rejections.filter((r) => isResendAnswer(r));
  const other = s.rejections.filter((r) => !isResendAnswer(r));
  report.checks.push({
    name: 'well-formed play gets no 4xx',
    held: other.length === 0,
    detail: other.length
      ? `${other.length}: ${other
          .slice(0, 3)
          .map((r) => `${r.status} ${r.path} ${r.code ?? ''} ${r.reason ?? ''}`)
          .join(' | ')}`
      : 'none',
  });
  if (resent.length) {
    report.checks.push({
      name: 'no player is told its own request failed because Redis ran it twice',
      held: false,
      detail: resent.map((r) => `${r.status} ${r.path} ${r.code ?? ''} ${r.reason ?? ''}`).join(' | '),
      finding: 'redis-resend',
    });
  }
  const unexpected = h.service.unexpectedExits.filter((e) => !report.notes.some((n) => n.includes(`pid ${e.pid}`)));
  for (const e of unexpected) report.notes.push(`the main process pid ${e.pid} exited on its own (code ${e.code}, signal ${e.signal})`);
  report.checks.push({
    name: 'the main process never exits on its own',
    held: h.service.unexpectedExits.length === 0,
    detail: `${h.service.unexpectedExits.length} unexpected exits so far`,
  });
  if (s.unexpected || s.networkErrors)
    report.notes.push(`${s.networkErrors} requests without an answer, ${s.unexpected} unexpected answers; e.g. ${s.samples.slice(0, 3).join(' | ')}`);
  return report;
}
