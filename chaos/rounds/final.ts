// The last round of every suite: settle everything, then receipts, bet log, books, conservation and the verifier.
import { auditBetLog, auditReceipts, playerBooks, waitAnchored } from '../books.ts';
import type { RoundHarness } from '../harness.ts';
import { finishTicket, recoverPlayer, emptyRecovery } from '../recovery.ts';
import type { Check, RoundReport } from '../report.ts';
import { runVerifier } from '../verifier.ts';
import { beginRound, endRound, recoveryChecks } from './common.ts';

export interface FinalOptions {
  /** Players below this index are load players whose open ticket is played to its end. */
  loadPlayers: number;
  /** Longest wait for every settled play to be anchored before the verifier runs. */
  anchorWaitMs: number;
  /** Checks a suite adds before the verifier runs. */
  extraChecks?: () => Promise<Check[]>;
}

export async function finalRound(h: RoundHarness, round: number, rounds: RoundReport[], options: FinalOptions): Promise<RoundReport> {
  const report = beginRound(h, round, 'final', 'settle everything; receipts, bet log, books, conservation, verifier');
  const out = emptyRecovery();
  for (const p of h.allPlayers) {
    await recoverPlayer(p, out);
    if (p.index < options.loadPlayers) await finishTicket(p, out);
  }
  report.checks.push(...recoveryChecks(out));
  await endRound(h, report);
  const anchored = await waitAnchored(h.service.api, options.anchorWaitMs);
  report.checks.push({
    name: 'every settled play anchored on-chain',
    held: anchored.committedSize === anchored.size,
    detail: `${anchored.committedSize} of ${anchored.size} bet-log entries committed after ${anchored.waitedMs} ms`,
  });
  const { journal } = h;
  const audit = await auditReceipts(h.service.api, journal);
  for (const r of rounds) r.figures.lost = audit.lost.filter((l) => l.round === r.round).length;
  report.figures.lost = audit.lost.filter((l) => l.round === round).length;
  const acked = journal.acked().length;
  report.checks.push({
    name: 'no acknowledged bet lost: each has a settled receipt',
    held: audit.lost.length === 0,
    detail: audit.lost.length
      ? `${audit.lost.length} of ${acked} lost, e.g. ${audit.lost
          .slice(0, 3)
          .map((l) => `${l.betPayloadHash.slice(0, 16)}… (round ${l.round}): ${l.why}`)
          .join(' | ')}`
      : `${acked} acknowledged bets, ${audit.receipts.size} receipts; ${audit.committedWithoutAck} more committed without their ack reaching the player, all settled`,
  });
  report.checks.push(...(await auditBetLog(h.service.api, audit.receipts)));
  // Books per player where every receipt is known: not the fuzz player, whose random bodies may open tickets.
  for (const p of h.allPlayers.filter((x) => x.booksKnown)) report.checks.push(await playerBooks(p, audit.receipts));
  if (options.extraChecks) report.checks.push(...(await options.extraChecks()));
  const verified = await runVerifier(h.service.api, h.service.rpcUrl, anchored.size);
  report.checks.push(...verified.checks);
  report.notes.push(`verifier ran ${verified.ms} ms over ${anchored.size} bet-log entries`);
  return report;
}
