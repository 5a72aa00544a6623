// From journal stream entries to journal_events rows: which events are plays, and nothing unsafe gets into a play.
import { describe, expect, it } from 'vitest';
import { JOURNAL_COLUMNS, journalRowOf, journalValues } from '../../analytics/journal-rows.ts';
import { playFieldsOf as playOf } from '../../protocol/plays.ts';
import { playOfJournalRow } from '../../analytics/shapes.ts';

const fields = (o: Record<string, string>) => Object.entries(o).flat();
const dice = (extra: Record<string, unknown> = {}) => ({
  game: 'dice',
  player: 'p_4kQz8',
  receiptId: 'dice_00ff',
  betPayloadHash: 'ab'.repeat(32),
  rngIndex: 3,
  rngReveal: null,
  wager: '1500000',
  payout: '2970000',
  status: 'won',
  roll: 1234,
  ...extra,
});
const AT = '2027-01-01T00:00:00.123Z';

describe('journalRowOf', () => {
  it('maps a settled dice bet to a play; source defaults to api', () => {
    const row = journalRowOf('1700000000000-0', fields({ seq: '42', type: 'bet_settled', at: AT, data: JSON.stringify(dice()) }));
    expect(row).toEqual({
      seq: 42,
      id: '1700000000000-0',
      type: 'bet_settled',
      at: AT,
      atMs: Date.parse(AT),
      eventGame: 'dice',
      data: JSON.stringify(dice()),
      play: { receiptId: 'dice_00ff', game: 'dice', player: 'p_4kQz8', source: 'api', betAmount: 1_500_000n, payout: 2_970_000n, won: true },
    });
    expect(journalValues(row!)).toHaveLength(JOURNAL_COLUMNS.length);
  });

  it('gives the public play shape of a settled play (for SSE), exact to the micro', () => {
    const row = journalRowOf(
      '9-0',
      fields({ seq: '9', type: 'bet_settled', at: AT, data: JSON.stringify(dice({ wager: '100000001', payout: '0', status: 'lost', source: 'mcp' })) }),
    );
    expect(playOfJournalRow(row!)).toEqual({
      receiptId: 'dice_00ff',
      game: 'dice',
      player: 'p_4kQz8',
      source: 'mcp',
      betAmount: 100.000001,
      payout: 0,
      profit: -100.000001,
      won: false,
      settledAt: AT,
    });
    expect(playOfJournalRow(journalRowOf('10-0', fields({ seq: '10', type: 'deposit_credited', at: AT, data: '{}' }))!)).toBeNull();
  });

  it('takes source mcp from the event, and anything unknown as api', () => {
    expect(playOf('bet_settled', dice({ source: 'mcp' }), 1)?.source).toBe('mcp');
    expect(playOf('bet_settled', dice({ source: 'web' }), 1)?.source).toBe('api');
  });

  it('maps a ticket with a receipt to a play, and not one without', () => {
    const ticket = {
      game: 'sweeper',
      player: 'p_4kQz8',
      ticketId: 't1',
      receiptId: 'sweeper_t1',
      mode: 'classic',
      outcome: 'busted',
      rowsWon: 0,
      wager: '100',
      payout: '0',
      status: 'lost',
    };
    expect(playOf('ticket_settled', ticket, 1)).toEqual({
      receiptId: 'sweeper_t1',
      game: 'sweeper',
      player: 'p_4kQz8',
      source: 'api',
      betAmount: 100n,
      payout: 0n,
      won: false,
    });
    expect(playOf('ticket_settled', { ...ticket, receiptId: null, status: null }, 1)).toBeNull();
  });

  it('never lets a wallet address, a malformed amount or a missing time into a play', () => {
    expect(playOf('bet_settled', dice({ player: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin' }), 1)).toBeNull();
    for (const wager of ['1.5', '-1', '01', '', '99999999999999999999', 5]) expect(playOf('bet_settled', dice({ wager }), 1)).toBeNull();
    expect(playOf('bet_settled', dice({ payout: null }), 1)).toBeNull();
    expect(playOf('bet_settled', dice(), 0)).toBeNull();
    expect(playOf('bet_committed', dice(), 1)).toBeNull();
    const noTime = journalRowOf('1-0', fields({ seq: '1', type: 'bet_settled', at: 'yesterday', data: JSON.stringify(dice()) }));
    expect([noTime?.atMs, noTime?.play]).toEqual([0, null]);
  });

  it('keeps a non-JSON payload as text, and refuses an entry without a seq', () => {
    const row = journalRowOf('5-0', fields({ seq: '5', type: 'odd', at: AT, data: 'not json' }));
    expect([row?.data, row?.eventGame, row?.play]).toEqual(['not json', '', null]);
    expect(journalRowOf('6-0', fields({ type: 'odd', at: AT, data: '{}' }))).toBeNull();
    expect(journalRowOf('6-0', fields({ seq: '-1', type: 'odd', at: AT, data: '{}' }))).toBeNull();
  });
});
