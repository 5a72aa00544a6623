// The gaps of issue 14 that a receipt or a proof alone shows, on the frozen v1 receipts: fields the old
// verifier copied instead of checking, hostile RNG indices, the session key's on-chain authorization, and
// progress that says how long a run will take even when nobody watches a terminal.
import { readFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { cryptoBackend, setCryptoBackend } from '../../protocol/crypto.ts';
import { signAck, ackBodyOf, type Ack } from '../../protocol/ack.ts';
import { commitMemo, MEMO_PROGRAM_ID, rngHeadMemo, revokeMemo, setupMemo } from '../../protocol/memo.ts';
import { toHex, utf8 } from '../../protocol/encoding.ts';
import { buildStateTree, encodeStateProof, stateLeafId } from '../../protocol/state-tree.ts';
import { NO_MANIFEST_HASH } from '../../protocol/manifest.ts';
import {
  RngAnchors,
  memosSignedBy,
  verifyReceipt,
  verifyStateProofResponse,
  checkSessionKey,
  Checks,
  type RpcTransaction,
  type SessionKeyHistory,
} from '../../protocol/verify/index.ts';
import { createProgress } from '../../verifier/progress.ts';
import { RngChain } from '../../protocol/rng-chain.ts';
import { keyEventsOf } from '../../protocol/verify/session-key.ts';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/verify/v1.json', import.meta.url), 'utf8'));
const { operatorPublicKey, ackPublicKey } = fixture.config as { operatorPublicKey: string; ackPublicKey: string };
const heads = Object.values(fixture.transactions as Record<string, RpcTransaction>)
  .flatMap((tx) => memosSignedBy(tx, operatorPublicKey))
  .flatMap((m) => (m.memo.kind === 'rng-head' ? [m.memo.headHex] : []));

function verify(receipt: unknown, ack = ackPublicKey) {
  const rng = new RngAnchors();
  for (const h of heads) rng.addHead(h);
  return verifyReceipt(receipt, { ackPublicKey: ack, operatorPublicKey, rng, commitTx: (s) => fixture.transactions[s] ?? null });
}
const failed = (r: ReturnType<typeof verify>) => r.checks.filter((c) => c.status === 'fail');
const dice = () => structuredClone(fixture.receipts.find((r: any) => r.game === 'dice' && r.status === 'won'));
const ticket = () => structuredClone(fixture.receipts.find((r: any) => r.game === 'sweeper'));

describe("rebuild, don't copy", () => {
  it('the untouched receipts pass', () => {
    for (const r of fixture.receipts) expect(failed(verify(r)), r.id).toEqual([]);
  });

  it.each([
    ['input.clientSeedRaw', (r: any) => (r.input.clientSeedRaw = 'ab'.repeat(32)), 'receipt-fields'],
    ['result.payout', (r: any) => (r.result.payout = r.result.payout + 1), 'payout'],
    ['result.won', (r: any) => (r.result.won = !r.result.won), 'outcome'],
    ['proof.rngReveal', (r: any) => (r.proof.rngReveal = 'cd'.repeat(32)), 'receipt-fields'],
    ['an extra field', (r: any) => (r.result.bonus = 1), 'receipt-fields'],
    ["the entry's payout", (r: any) => (r.verifierPayload.betLogEntry.payout = '1'), 'bet-log-entry'],
  ])('a dice receipt whose %s was changed fails', (_what, change, check) => {
    const r = dice();
    change(r);
    expect(failed(verify(r)).map((c) => c.name)).toContain(check);
  });

  it("a Sweeper turn's copied rngReveal, seed or mine column fails", () => {
    const copied = ticket();
    copied.proof.turns[0].rngReveal = 'ef'.repeat(32);
    expect(failed(verify(copied)).map((c) => c.name)).toEqual(['receipt-fields']);
    const seed = ticket();
    seed.input.turns[0].clientSeedRaw = null;
    expect(failed(verify(seed)).map((c) => c.name)).toEqual(['receipt-fields']);
    const column = ticket();
    column.result.resultColumns[0] = (column.result.resultColumns[0] + 1) % 3;
    expect(failed(verify(column)).map((c) => c.name)).toEqual(['outcome']);
    const proofReveal = ticket();
    proofReveal.verifierPayload.turns[0].rngReveal = 'ef'.repeat(32);
    expect(failed(verify(proofReveal)).map((c) => c.name)).toContain('turn[0].rng-reveal');
  });
});

describe("a state proof's shown leaf", () => {
  const ANCHOR = base58.encode(createHash('sha256').update('anchor').digest());
  const wallet = base58.encode(createHash('sha256').update('wallet').digest());
  const salt = randomBytes(32);
  const id = stateLeafId(base58.decode(wallet), salt);
  const tree = buildStateTree([
    { id, liability: 5_000_000n },
    { id: createHash('sha256').update('other').digest(), liability: 7_000_000n },
  ]);
  const memo = commitMemo({
    entryCount: 9,
    betLogRoot: 'ab'.repeat(32),
    stateRoot: toHex(tree.root),
    totalLiabilities: tree.total,
    rngIndex: 0,
    rngRevealHex: 'cd'.repeat(32),
    manifestHash: NO_MANIFEST_HASH,
  });
  const tx: RpcTransaction = {
    slot: 1,
    transaction: {
      signatures: ['sig'],
      message: {
        accountKeys: [ANCHOR, MEMO_PROGRAM_ID],
        header: { numRequiredSignatures: 1 },
        instructions: [{ programIdIndex: 1, accounts: [0], data: base58.encode(utf8(memo)) }],
      },
    },
    meta: { err: null },
  };
  const proof = encodeStateProof(tree.proof(id));
  const response = {
    wallet,
    epoch: 9,
    entryCount: 9,
    commitSignature: 'sig',
    stateRoot: toHex(tree.root),
    totalLiabilities: tree.total.toString(),
    salt: salt.toString('hex'),
    leaf: { id: proof.id, liability: proof.liability },
    proof,
  };

  it('passes when it is the proven leaf, and fails when leaf.liability is not', () => {
    expect(verifyStateProofResponse(response, wallet, tx, ANCHOR).checks.filter((c) => c.status !== 'pass')).toEqual([]);
    const shown = { ...response, leaf: { ...response.leaf, liability: '9000000' } };
    expect(
      verifyStateProofResponse(shown, wallet, tx, ANCHOR)
        .checks.filter((c) => c.status === 'fail')
        .map((c) => c.name),
    ).toEqual(['leaf']);
    const total = { ...response, totalLiabilities: '1' };
    expect(
      verifyStateProofResponse(total, wallet, tx, ANCHOR)
        .checks.filter((c) => c.status === 'fail')
        .map((c) => c.name),
    ).toEqual(['total-liabilities']);
  });
});

describe('hostile RNG indices', () => {
  const previous = cryptoBackend();
  let hashes = 0;
  afterEach(() => setCryptoBackend(previous));
  const counting = () => {
    hashes = 0;
    setCryptoBackend({
      ...previous,
      name: 'counting',
      sha256: (d) => {
        hashes++;
        return previous.sha256(d);
      },
    });
  };

  it('an ack whose signature fails binds nothing: no hash walk for an index of 10,000,000', () => {
    const r = dice();
    r.verifierPayload.ack.rngIndex = 10_000_000;
    counting();
    const report = verify(r);
    expect(hashes).toBeLessThan(1_000);
    expect(report.checks.find((c) => c.name === 'ack-signature')).toMatchObject({ status: 'fail' });
    expect(report.checks.find((c) => c.name === 'rng-reveal')).toMatchObject({
      status: 'skip',
      reason: expect.stringContaining('ack signature does not verify'),
    });
  });

  it('a signed index too far from every committed value is refused without walking', () => {
    // An operator signs an ack with a far index: its own key, so the ack verifies.
    const seed = randomBytes(32);
    const key = base58.encode(Buffer.from(previous.ed25519PublicKey(seed)));
    const r = dice();
    const ack: Ack = signAck({ ...ackBodyOf(r.verifierPayload.ack), rngIndex: 10_000_000 }, seed);
    r.verifierPayload.ack = ack;
    counting();
    const report = verify(r, key);
    expect(hashes).toBeLessThan(1_000);
    expect(report.checks.find((c) => c.name === 'ack-signature')).toMatchObject({ status: 'pass' });
    expect(report.checks.find((c) => c.name === 'rng-reveal')).toMatchObject({ status: 'fail', reason: expect.stringContaining('too far') });
    // Out of any plausible range: refused as malformed before anything else.
    r.verifierPayload.ack = signAck({ ...ackBodyOf(r.verifierPayload.ack), rngIndex: 2 ** 50 }, seed);
    expect(verify(r, key).checks.find((c) => c.name === 'ack-signature')).toMatchObject({ status: 'fail', reason: expect.stringContaining('out of bounds') });
  });

  it('a walk that is long but legal still verifies (the bound is a bound, not a guess)', () => {
    const chain = new RngChain({ secret: new Uint8Array(32).fill(9), length: 300_000 });
    const rng = new RngAnchors();
    rng.addHead(chain.headHex);
    expect(rng.link(chain.headHex, 250_000, chain.valueHex(250_000))).toEqual({ ok: true });
  });
});

describe("the session key's on-chain authorization", () => {
  const wallet = base58.encode(createHash('sha256').update('w').digest());
  const key = base58.encode(createHash('sha256').update('k').digest());
  const at = (s: number) => new Date(1_800_000_000_000 + s * 1000).toISOString();
  const event = (kind: 'setup' | 'revoke', slot: number, second: number) => ({
    kind,
    wallet,
    sessionPubkey: key,
    signature: `${kind}${slot}`,
    slot,
    blockTime: 1_800_000_000 + second,
  });
  const check = (events: SessionKeyHistory['events'], committedAt: string) => {
    const checks = new Checks();
    checkSessionKey({ check: 'session-key', sessionPubkey: key, committedAt }, { status: 'found', history: { wallet, sessionPubkey: key, events } }, checks);
    return checks.list[0]!;
  };

  it('passes a key set up by its wallet before the commit', () => {
    expect(check([event('setup', 10, 0)], at(5)).status).toBe('pass');
    // Revoked after the bet, or re-authorized after a revocation: still fine.
    expect(check([event('setup', 10, 0), event('revoke', 20, 600)], at(300)).status).toBe('pass');
    expect(check([event('setup', 10, 0), event('revoke', 20, 100), event('setup', 30, 200)], at(400)).status).toBe('pass');
  });

  it('fails a key never set up, set up after the commit, or revoked before it', () => {
    expect(check([], at(5))).toMatchObject({ status: 'fail', reason: expect.stringContaining('no setup memo') });
    expect(check([event('setup', 10, 3600)], at(5))).toMatchObject({ status: 'fail', reason: expect.stringContaining('no setup memo') });
    expect(check([event('setup', 10, 0), event('revoke', 20, 100)], at(400))).toMatchObject({ status: 'fail', reason: expect.stringContaining('revoked') });
  });

  it('reads only memos signed by the wallet they name', () => {
    const stranger = base58.encode(createHash('sha256').update('s').digest());
    const txOf = (signer: string, text: string): RpcTransaction => ({
      slot: 3,
      blockTime: 1_800_000_000,
      transaction: {
        signatures: ['x'],
        message: {
          accountKeys: [signer, MEMO_PROGRAM_ID],
          header: { numRequiredSignatures: 1 },
          instructions: [{ programIdIndex: 1, accounts: [0], data: base58.encode(utf8(text)) }],
        },
      },
      meta: { err: null },
    });
    expect(keyEventsOf(txOf(wallet, setupMemo(wallet, key)), key)).toHaveLength(1);
    expect(keyEventsOf(txOf(stranger, setupMemo(wallet, key)), key)).toEqual([]);
    expect(keyEventsOf(txOf(wallet, revokeMemo(wallet, key)), key)[0]!.kind).toBe('revoke');
    expect(keyEventsOf(txOf(wallet, rngHeadMemo(1, 'ab'.repeat(32))), key)).toEqual([]);
  });
});

describe('progress', () => {
  it('prints periodic lines with a rate and an ETA when not on a terminal, and a bar on one', () => {
    let t = 0;
    let text = '';
    const p = createProgress({ write: (s) => (text += s), tty: false, lineEveryMs: 1000, now: () => t });
    p.start('bet-log entries', 10_000);
    for (t = 500; t <= 4000; t += 500) p.update(t * 2);
    t = 4000;
    p.finish();
    const plain = text.trim().split('\n');
    expect(plain[0]).toBe('bet-log entries: 2000/10000 (20%) 2000/s ETA 4s');
    expect(plain).toHaveLength(5);
    expect(plain.at(-1)).toMatch(/done in 4s$/);
    let bar = '';
    const tty = createProgress({ write: (s) => (bar += s), tty: true, now: () => t });
    t = 0;
    tty.start('x', 4);
    t = 1000;
    tty.update(2);
    expect(bar).toMatch(/\rx \[#{15}-{15}\] 2\/4 \(50%\) 2\/s ETA 1s/);
  });
});
