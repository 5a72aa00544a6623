// Idle Sweeper tickets (design §10) in the receipt format: protocol/sweeper-receipt.ts builds the receipt and bet-log
// entry of a ticket closed by the deadline worker, and the verifier's Sweeper checks accept it and nothing else.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildSweeperSettlement, type SweeperTurnInput } from '../../protocol/sweeper-receipt.ts';
import { sweeperPayout, type SweeperMode } from '../../protocol/sweeper.ts';
import { Checks } from '../../protocol/verify/report.ts';
import { checkSweeperReceipt } from '../../protocol/verify/sweeper.ts';

type Json = any;
const fixture = JSON.parse(readFileSync(new URL('../fixtures/verify/v1.json', import.meta.url), 'utf8')) as Json;
const ticket = fixture.receipts.find((r: Json) => r.game === 'sweeper');
const vp = ticket.verifierPayload;
const base = {
  ticketId: 't_idle0000000000000000000',
  mode: vp.mode as SweeperMode,
  wager: BigInt(vp.wagerMicro),
  player: vp.turns[0].betPayload.player as string,
  source: 'api' as const,
  settledAt: '2026-01-01T00:20:00.000Z',
};

function gameFailures(receipt: Json): string[] {
  const checks = new Checks();
  checkSweeperReceipt(receipt, { ackPublicKey: fixture.config.ackPublicKey }, checks);
  return checks
    .report('x')
    .checks.filter((c) => c.status === 'fail')
    .map((c) => c.name);
}

describe('an idle ticket’s receipt', () => {
  it('at 0 rows: expired, the stake paid back, closedBy idle in the receipt and the bet-log entry', () => {
    const s = buildSweeperSettlement({ ...base, turns: [], closedBy: 'idle' });
    expect(s).toMatchObject({ outcome: 'expired', status: 'expired', rowsWon: 0, payout: base.wager, closedBy: 'idle' });
    expect(s.receipt).toMatchObject({ status: 'expired', closedBy: 'idle', payout: Number(base.wager) / 1e6, profit: 0, result: { outcome: 'expired' } });
    expect(s.receipt.verifierPayload).toMatchObject({ closedBy: 'idle', turns: [] });
    expect(s.betLogEntry).toMatchObject({ closedBy: 'idle', outcome: 'expired', status: 'expired', payout: base.wager.toString(), turns: [] });
    expect(gameFailures(s.receipt)).toEqual([]);
    expect(() => buildSweeperSettlement({ ...base, turns: [] })).toThrow(/has not ended/);
  });

  it('after a won row: cashed out at the current payout', () => {
    const turns = vp.turns.slice(0, 1) as SweeperTurnInput[];
    const s = buildSweeperSettlement({ ...base, ticketId: vp.ticketId, turns, closedBy: 'idle' });
    expect(s).toMatchObject({ outcome: 'cashed_out', status: 'won', rowsWon: 1, payout: sweeperPayout(base.wager, base.mode, 1) });
    expect(s.betLogEntry).toMatchObject({ closedBy: 'idle', outcome: 'cashed_out' });
    expect(gameFailures(s.receipt)).toEqual([]);
    // A ticket its own turns ended cannot be closed as idle.
    expect(() => buildSweeperSettlement({ ...base, ticketId: vp.ticketId, turns: vp.turns, closedBy: 'idle' })).toThrow(/ended before/);
  });

  it('leaves every other ticket’s entry without the field', () => {
    const s = buildSweeperSettlement({ ...base, ticketId: vp.ticketId, source: ticket.source, settledAt: vp.betLogEntry.settledAt, turns: vp.turns });
    expect(s.betLogEntryHash).toBe(ticket.anchor.betLogEntryHash);
    expect('closedBy' in s.betLogEntry || 'closedBy' in s.receipt || 'closedBy' in s.receipt.verifierPayload).toBe(false);
  });

  it('fails verification when the close is claimed, dropped or changed where it does not hold', () => {
    const expired = buildSweeperSettlement({ ...base, turns: [], closedBy: 'idle' }).receipt as Json;
    const cashed = buildSweeperSettlement({ ...base, ticketId: vp.ticketId, turns: vp.turns.slice(0, 1), closedBy: 'idle' }).receipt as Json;
    const tamper = (r: Json, change: (x: Json) => void) => {
      const copy = structuredClone(r);
      change(copy);
      return gameFailures(copy);
    };
    // No close named: a ticket whose turns did not end it.
    expect(tamper(cashed, (r) => delete r.verifierPayload.closedBy)).toContain('ticket-ended');
    // The entry or the receipt saying otherwise than the verified close.
    expect(tamper(cashed, (r) => delete r.verifierPayload.betLogEntry.closedBy)).toContain('bet-log-entry');
    expect(tamper(expired, (r) => delete r.closedBy)).toContain('outcome');
    // An expired ticket pays its stake back, no more, and is not a win.
    expect(tamper(expired, (r) => (r.status = 'won'))).toContain('outcome');
    expect(tamper(expired, (r) => (r.payout = r.payout * 2))).toContain('payout');
    expect(tamper(expired, (r) => (r.verifierPayload.betLogEntry.payout = '0'))).toContain('bet-log-entry');
    // Claiming an idle close of a ticket its turns already ended, or another kind of close.
    expect(tamper(ticket, (r) => (r.verifierPayload.closedBy = 'idle'))).toContain('closed-by');
    expect(tamper(cashed, (r) => (r.verifierPayload.closedBy = 'operator'))).toContain('closed-by');
  });
});
