// Parts written per shipped batch (issue 25): an INSERT costs chDB a fixed amount per new part (its files, then its
// merges), so the schema keeps the parts one batch writes few — on both engines.
import { describe, expect, it } from 'vitest';
import type { AnalyticsEngine } from '../../analytics/engine.ts';
import { journalRowOf, type JournalRow } from '../../analytics/journal-rows.ts';
import { migrate } from '../../analytics/migrations.ts';
import { insertJournalBatch } from '../../analytics/shipper.ts';
import { ENGINE_KINDS, engineEnv } from './engines.ts';
import { alias, playEntry, receiptIdFor } from './fixture.ts';

const HOUR_START = Date.parse('2026-12-31T12:00:00.000Z');

/** `n` settled plays within one hour, as the shipper maps them. */
function batch(fromSeq: number, n: number): JournalRow[] {
  return Array.from({ length: n }, (_, i) => {
    const game = i % 2 ? 'dice' : 'sweeper';
    const e = playEntry({
      receiptId: receiptIdFor(game),
      game,
      player: alias(i % 7),
      sourceField: i % 3 ? 'api' : 'mcp',
      wager: 10_000n + BigInt(i),
      payout: i % 4 ? 0n : 20_000n,
      won: i % 4 === 0,
      atMs: HOUR_START + (fromSeq + i) * 1000,
    });
    const seq = fromSeq + i;
    return journalRowOf(`${1_000 + seq}-0`, ['seq', String(seq), 'type', e.type, 'at', e.at, 'data', JSON.stringify(e.data)]) as JournalRow;
  });
}

/**
 * The inserted parts of every table, active or already merged away: one block number each (`<partition>_N_N_<level>`;
 * a merge spans several, and chDB gives an inserted SummingMergeTree part level 1, merged on insert).
 */
async function insertedParts(engine: AnalyticsEngine): Promise<Set<string>> {
  const rows = await engine.query<{ table: string; name: string }>('SELECT table, name FROM system.parts WHERE database = currentDatabase()');
  return new Set(rows.filter((r) => /_(\d+)_\1_\d+$/.test(r.name)).map((r) => `${r.table}/${r.name}`));
}

describe.each(ENGINE_KINDS)('one shipped batch on %s', (kind) => {
  const env = engineEnv(kind);

  it('writes one part in journal_events and one in each table its views feed', async () => {
    const engine = await env.open();
    await migrate(engine);
    await insertJournalBatch(engine, batch(1, 50));
    const before = await insertedParts(engine);
    await insertJournalBatch(engine, batch(51, 200));
    const added = [...(await insertedParts(engine))].filter((p) => !before.has(p)).map((p) => p.split('/')[0]);
    expect(added.sort()).toEqual(['journal_events', 'plays', 'slice_totals']);
  });
});
