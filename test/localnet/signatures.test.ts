import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKeyPairSigner, lamports, type Address, type Instruction, type Signature } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { memoIx, raw, sendIxs, startTestNet, type TestNet } from './helpers.ts';

const N = 25;

describe('localnet: getSignaturesForAddress paging', () => {
  let net: TestNet;
  let watched: Address;
  /** Oldest first. */
  const sent: Signature[] = [];
  let airdropSig: Signature;
  let laterSig: Signature;

  beforeAll(async () => {
    net = await startTestNet({ slotIntervalMs: 5 });
    const payer = await generateKeyPairSigner();
    airdropSig = await net.rpc.requestAirdrop(payer.address, lamports(10_000_000_000n)).send();
    watched = (await generateKeyPairSigner()).address;
    for (let i = 0; i < N; i++) {
      // Every other transaction also carries a memo, to check the memo column per entry.
      const ixs: Instruction[] = [getTransferSolInstruction({ source: payer, destination: watched, amount: 1_000_000n + BigInt(i) })];
      if (i % 2 === 0) ixs.push(memoIx(`tx ${i}`));
      sent.push(await sendIxs(net.rpc, payer, ixs));
    }
    laterSig = await sendIxs(net.rpc, payer, [memoIx('unrelated')]);
  });

  afterAll(async () => {
    await net.dispose();
  });

  const newestFirst = (): Signature[] => [...sent].reverse();

  it('returns every signature newest first by default, with finalized entries', async () => {
    const all = await net.rpc.getSignaturesForAddress(watched).send();
    expect(all.map((s) => s.signature)).toEqual(newestFirst());
    const slots = all.map((s) => s.slot);
    for (let i = 1; i < slots.length; i++) expect(slots[i - 1]).toBeGreaterThanOrEqual(slots[i] ?? 0n);
    for (const s of all) {
      expect(s.confirmationStatus).toBe('finalized');
      expect(s.err).toBeNull();
      expect(typeof s.blockTime).toBe('bigint');
    }
    expect(all[0]?.memo).toBe('[5] tx 24');
    expect(all[1]?.memo).toBeNull();
    expect(all[N - 1]?.memo).toBe('[4] tx 0');
  });

  it('honours limit', async () => {
    const page = await net.rpc.getSignaturesForAddress(watched, { limit: 7 }).send();
    expect(page.map((s) => s.signature)).toEqual(newestFirst().slice(0, 7));
  });

  it('pages with before (exclusive) until exhausted', async () => {
    const seen: Signature[] = [];
    let before: Signature | undefined;
    for (;;) {
      const page = await net.rpc.getSignaturesForAddress(watched, { limit: 10, ...(before ? { before } : {}) }).send();
      if (page.length === 0) break;
      expect(page.length).toBeLessThanOrEqual(10);
      seen.push(...page.map((s) => s.signature));
      before = page[page.length - 1]?.signature;
    }
    expect(seen).toEqual(newestFirst());
  });

  it('stops before until (exclusive), also combined with before and limit', async () => {
    const order = newestFirst();
    const until = order[15];
    const before = order[4];
    if (!until || !before) throw new Error('fixture too small');
    const toUntil = await net.rpc.getSignaturesForAddress(watched, { until }).send();
    expect(toUntil.map((s) => s.signature)).toEqual(order.slice(0, 15));
    const window = await net.rpc.getSignaturesForAddress(watched, { before, until }).send();
    expect(window.map((s) => s.signature)).toEqual(order.slice(5, 15));
    const limited = await net.rpc.getSignaturesForAddress(watched, { before, until, limit: 3 }).send();
    expect(limited.map((s) => s.signature)).toEqual(order.slice(5, 8));
  });

  it('accepts before/until signatures that do not involve the address', async () => {
    const order = newestFirst();
    const fromLater = await net.rpc.getSignaturesForAddress(watched, { before: laterSig, limit: 2 }).send();
    expect(fromLater.map((s) => s.signature)).toEqual(order.slice(0, 2));
    expect(await net.rpc.getSignaturesForAddress(watched, { before: airdropSig }).send()).toEqual([]);
    expect((await net.rpc.getSignaturesForAddress(watched, { until: airdropSig }).send()).length).toBe(N);
    expect(await net.rpc.getSignaturesForAddress(watched, { until: laterSig }).send()).toEqual([]);
    // An unknown `before` yields nothing, an unknown `until` does not stop the scan.
    const unknown = '5'.repeat(88) as Signature;
    expect(await net.rpc.getSignaturesForAddress(watched, { before: unknown }).send()).toEqual([]);
    expect((await net.rpc.getSignaturesForAddress(watched, { until: unknown }).send()).length).toBe(N);
  });

  it('validates limit and addresses', async () => {
    const tooMany = await raw(net.ln.url, 'getSignaturesForAddress', [watched, { limit: 1001 }]);
    expect(tooMany.error).toEqual({ code: -32602, message: 'Invalid limit; max 1000' });
    const bad = await raw(net.ln.url, 'getSignaturesForAddress', ['not-an-address']);
    expect(bad.error?.code).toBe(-32602);
    const none = await net.rpc.getSignaturesForAddress((await generateKeyPairSigner()).address).send();
    expect(none).toEqual([]);
  });

  it('indexes every account key of the message, including programs', async () => {
    const memoSigs = await net.rpc.getSignaturesForAddress('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' as Address).send();
    expect(memoSigs.map((s) => s.signature)).toEqual([laterSig, ...newestFirst().filter((_, i) => (N - 1 - i) % 2 === 0)]);
  });
});
