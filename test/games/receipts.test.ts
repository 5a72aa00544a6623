// Public receipts: from Redis while it holds them, then from the archive. An unknown id costs no archive query
// while Redis has dropped nothing, and an archive that cannot answer is never taken for "no such receipt".
import { describe, expect, it } from 'vitest';
import { Receipts } from '../../games/receipts.ts';
import { PfwsError } from '../../protocol/errors.ts';

const body = (id: string) => `{"id":"${id}","anchor":{"status":"pending_commit"},"createdAt":"2027-01-01T00:00:00.000Z"}`;
const anchor = '{"status":"committed","betLogIndex":3}';

function receiptsWith(stored: Record<string, string>, pruned: number, archive: 'up' | 'down' | 'none') {
  const asked: string[][] = [];
  const receipts = new Receipts({
    bets: { receipt: async (id) => (stored[id] ? { body: stored[id], anchor: null } : null) },
    retention: { prunedSize: async () => pruned },
    archive:
      archive === 'none'
        ? null
        : {
            archivedReceipts: async ({ receiptIds }) => {
              asked.push([...receiptIds]);
              if (archive === 'down') throw new PfwsError('SERVICE_UNAVAILABLE', 'down');
              return receiptIds.filter((id) => id.startsWith('old_')).map((receiptId) => ({ receiptId, body: body(receiptId), anchor }));
            },
          },
  });
  return { receipts, asked };
}

describe('Receipts.read', () => {
  it('reads Redis first, and the archive only once Redis has dropped some receipts', async () => {
    const fresh = receiptsWith({ new_1: body('new_1') }, 0, 'up');
    expect(await fresh.receipts.read('new_1')).toEqual({ id: 'new_1', anchor: { status: 'pending_commit' }, createdAt: '2027-01-01T00:00:00.000Z' });
    expect(await fresh.receipts.read('old_1')).toBeNull();
    expect(fresh.asked).toEqual([]);

    const pruned = receiptsWith({ new_1: body('new_1') }, 256, 'up');
    expect(await pruned.receipts.read('new_1')).toMatchObject({ id: 'new_1' });
    expect(await pruned.receipts.read('old_1')).toEqual({ id: 'old_1', anchor: JSON.parse(anchor), createdAt: '2027-01-01T00:00:00.000Z' });
    expect(await pruned.receipts.read('dice_nope')).toBeNull();
    expect(await pruned.receipts.read("dice_' OR 1")).toBeNull();
    expect(await pruned.receipts.read('x'.repeat(300))).toBeNull();
    expect(pruned.asked).toEqual([['old_1'], ['dice_nope']]);
  });

  it('answers SERVICE_UNAVAILABLE, not "no such receipt", while the archive cannot answer', async () => {
    const { receipts } = receiptsWith({}, 256, 'down');
    await expect(receipts.read('old_1')).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    // A process that reaches no archive answers from Redis alone.
    expect(await receiptsWith({}, 256, 'none').receipts.read('old_1')).toBeNull();
  });
});
