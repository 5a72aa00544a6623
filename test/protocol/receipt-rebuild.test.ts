// protocol/ owns the receipt and bet-log entry formats: the frozen receipts of the v1 fixture, written by the
// service, are rebuilt byte for byte from their verifiable inputs by the same functions.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rebuildReceipt as rebuild } from '../helpers/rebuild-receipt.ts';

type Json = any;
const fixture = JSON.parse(readFileSync(new URL('../fixtures/verify/v1.json', import.meta.url), 'utf8')) as { receipts: Json[] };

describe('receipt formats', () => {
  it.each(fixture.receipts.map((r) => [r.id, r] as const))('%s is rebuilt byte for byte from its verifiable inputs', (_id, receipt) => {
    const rebuilt = rebuild(receipt);
    const { anchor, ...body } = receipt;
    const { anchor: rebuiltAnchor, ...rebuiltBody } = rebuilt.receipt;
    expect(JSON.stringify(rebuiltBody)).toBe(JSON.stringify(body));
    expect(rebuilt.betLogEntryHash).toBe(anchor.betLogEntryHash);
    expect(rebuiltAnchor.status).toBe('pending_commit');
  });

  it('a changed input changes the leaf', () => {
    const dice = fixture.receipts.find((r) => r.game === 'dice' && r.status === 'won');
    const changed = structuredClone(dice);
    changed.verifierPayload.betPayload.wager = String(BigInt(changed.verifierPayload.betPayload.wager) + 1n);
    expect(rebuild(changed).betLogEntryHash).not.toBe(dice.anchor.betLogEntryHash);
    const ticket = fixture.receipts.find((r) => r.game === 'sweeper');
    const lost = structuredClone(ticket);
    lost.verifierPayload.turns.at(-1).clientSeedRaw = null;
    expect((rebuild(lost) as { outcome?: string }).outcome).toBe('forfeited');
  });
});
