// Operator memos as a verifier reads them, RNG anchoring, and the commit-log checks (hidden, forked, inconsistent, insolvent).
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { commitMemo, MEMO_PROGRAM_ID, rngHeadMemo } from '../../protocol/memo.ts';
import { MerkleLog } from '../../protocol/merkle-log.ts';
import { leafHash, proofToHex } from '../../protocol/merkle.ts';
import { toHex, utf8 } from '../../protocol/encoding.ts';
import { RngChain } from '../../protocol/rng-chain.ts';
import { NO_MANIFEST_HASH } from '../../protocol/manifest.ts';
import { memosSignedBy, type RpcTransaction, type SignedMemo } from '../../protocol/verify/chain.ts';
import { RngAnchors } from '../../protocol/verify/rng.ts';
import { verifyCommitLog, type PublishedCommit } from '../../protocol/verify/log.ts';

const key = (n: number) => base58.encode(createHash('sha256').update(`key ${n}`).digest());
const ANCHOR = key(1);
const STRANGER = key(2);
let sigCounter = 0;

/** A json-encoded transaction: signers first, then the memo program; each memo lists its signer indices. */
function tx(signers: string[], memos: { text: string; accounts: number[] }[], err: unknown = null): RpcTransaction {
  const accountKeys = [...signers, key(99), MEMO_PROGRAM_ID];
  return {
    slot: 10,
    blockTime: 1_800_000_000,
    transaction: {
      signatures: [`${base58.encode(createHash('sha256').update(`sig ${sigCounter++}`).digest())}x`],
      message: {
        accountKeys,
        header: { numRequiredSignatures: signers.length },
        instructions: memos.map((m) => ({ programIdIndex: accountKeys.length - 1, accounts: m.accounts, data: base58.encode(utf8(m.text)) })),
      },
    },
    meta: { err },
  };
}

const chain = new RngChain({ secret: new Uint8Array(32).fill(5), length: 100 });
const headMemo = rngHeadMemo(1, chain.headHex);

describe('memos signed by the anchor key', () => {
  it('counts only a memo whose sole signer account is the key, in a transaction that succeeded', () => {
    expect(memosSignedBy(tx([ANCHOR], [{ text: headMemo, accounts: [0] }]), ANCHOR).map((m) => m.memo.kind)).toEqual(['rng-head']);
    expect(memosSignedBy(tx([STRANGER], [{ text: headMemo, accounts: [0] }]), ANCHOR)).toEqual([]);
    expect(memosSignedBy(tx([ANCHOR, STRANGER], [{ text: headMemo, accounts: [0, 1] }]), ANCHOR)).toEqual([]);
    expect(memosSignedBy(tx([STRANGER, ANCHOR], [{ text: headMemo, accounts: [1] }]), ANCHOR)).toHaveLength(1);
    // Listed as an account but not a signer of the transaction.
    const notSigner = tx([STRANGER], [{ text: headMemo, accounts: [1] }]);
    notSigner.transaction.message.accountKeys = [STRANGER, ANCHOR, MEMO_PROGRAM_ID];
    notSigner.transaction.message.instructions = [{ programIdIndex: 2, accounts: [1], data: base58.encode(utf8(headMemo)) }];
    expect(memosSignedBy(notSigner, ANCHOR)).toEqual([]);
    expect(memosSignedBy(tx([ANCHOR], [{ text: headMemo, accounts: [0] }], { InstructionError: [0, 'Custom'] }), ANCHOR)).toEqual([]);
    expect(memosSignedBy(tx([ANCHOR], [{ text: 'pfws:v1:rng-head:1:zz', accounts: [0] }]), ANCHOR)).toEqual([]);
    expect(memosSignedBy(null, ANCHOR)).toEqual([]);
  });
});

describe('RNG anchoring', () => {
  it('links a reveal to the committed head, then to the nearest anchored value', () => {
    const rng = new RngAnchors();
    expect(rng.link(chain.headHex, 3, chain.valueHex(3))).toMatchObject({ ok: false, reason: expect.stringContaining('never committed') });
    rng.addHead(chain.headHex);
    expect(rng.link(chain.headHex, 3, chain.valueHex(3))).toEqual({ ok: true });
    expect(rng.link(chain.headHex, 7, chain.valueHex(7))).toEqual({ ok: true });
    expect(rng.link(chain.headHex, 5, chain.valueHex(6))).toMatchObject({ ok: false, reason: expect.stringContaining('does not equal') });
    expect(rng.link(chain.headHex, 7, chain.valueHex(8))).toMatchObject({ ok: false, reason: expect.stringContaining('differs') });
    expect(rng.link(chain.headHex, 0, chain.headHex).ok).toBe(false);
    expect(rng.linkAny(9, chain.valueHex(9))).toEqual({ ok: true, head: chain.headHex });
    expect(rng.linkAny(0, chain.headHex)).toEqual({ ok: true, head: chain.headHex });
    const other = new RngChain({ secret: new Uint8Array(32).fill(6), length: 20 });
    expect(rng.linkAny(4, other.valueHex(4)).ok).toBe(false);
  });
});

/** A log with commits at the given sizes, their on-chain memos, and the published consistency proofs. */
function commitLog(sizes: number[], liabilities = 5_000_000n) {
  const log = new MerkleLog();
  log.append(Array.from({ length: sizes[sizes.length - 1]! }, (_, i) => leafHash(utf8(`entry ${i}`))));
  const commits: PublishedCommit[] = [];
  const onChain: SignedMemo[] = memosSignedBy(tx([ANCHOR], [{ text: headMemo, accounts: [0] }]), ANCHOR);
  sizes.forEach((n, k) => {
    const fields = {
      entryCount: n,
      betLogRoot: toHex(log.root(n)),
      stateRoot: 'ab'.repeat(32),
      totalLiabilities: liabilities,
      rngIndex: k,
      rngRevealHex: chain.valueHex(k),
      manifestHash: NO_MANIFEST_HASH,
    };
    const memo = memosSignedBy(tx([ANCHOR], [{ text: commitMemo(fields), accounts: [0] }]), ANCHOR)[0]!;
    onChain.push(memo);
    commits.push({
      commitId: `commit-${n}`,
      entryCount: n,
      betLogRoot: fields.betLogRoot,
      stateRoot: fields.stateRoot,
      totalLiabilities: String(liabilities),
      rngIndex: k,
      rngReveal: fields.rngRevealHex,
      manifestHash: NO_MANIFEST_HASH,
      signature: memo.signature,
    });
  });
  const consistency = (a: number, b: number) => proofToHex(log.consistencyProof(a, b));
  return { log, commits, onChain, consistency };
}

const failed = (report: ReturnType<typeof verifyCommitLog>) => report.checks.filter((c) => c.status === 'fail').map((c) => c.name);

describe('the commit log', () => {
  it('passes published commits that match the chain and extend each other', () => {
    const { commits, onChain, consistency } = commitLog([1, 3, 8, 13]);
    const report = verifyCommitLog({ commits, onChain, consistency, rng: new RngAnchors(), vaultBalance: 5_000_000n, manifestKnown: () => false });
    expect(report.checks.filter((c) => c.status !== 'pass')).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('catches a published root that does not match the chain', () => {
    const { commits, onChain, consistency } = commitLog([2, 5]);
    const tampered = commits.map((c, i) => (i === 1 ? { ...c, betLogRoot: 'cd'.repeat(32) } : c));
    const report = verifyCommitLog({ commits: tampered, onChain, consistency, rng: new RngAnchors() });
    expect(failed(report)).toEqual(expect.arrayContaining(['published-on-chain', 'on-chain-published']));
    expect(report.ok).toBe(false);
  });

  it('catches an on-chain commit left out of the published list, and two different commits of one size', () => {
    const { commits, onChain, consistency, log } = commitLog([2, 5, 9]);
    expect(failed(verifyCommitLog({ commits: [commits[0]!, commits[2]!], onChain, consistency, rng: new RngAnchors() }))).toContain('on-chain-published');
    const fork = memosSignedBy(
      tx(
        [ANCHOR],
        [
          {
            text: commitMemo({
              entryCount: 5,
              betLogRoot: 'ee'.repeat(32),
              stateRoot: 'ab'.repeat(32),
              totalLiabilities: 1n,
              rngIndex: 0,
              rngRevealHex: chain.headHex,
              manifestHash: NO_MANIFEST_HASH,
            }),
            accounts: [0],
          },
        ],
      ),
      ANCHOR,
    );
    expect(log.size).toBe(9);
    expect(failed(verifyCommitLog({ commits, onChain: [...onChain, ...fork], consistency, rng: new RngAnchors() }))).toContain('on-chain-unique');
    // A stranger's commit memo counts for nothing.
    const stranger = memosSignedBy(tx([STRANGER], [{ text: fork[0]!.text, accounts: [0] }]), ANCHOR);
    expect(verifyCommitLog({ commits, onChain: [...onChain, ...stranger], consistency, rng: new RngAnchors() }).ok).toBe(true);
  });

  it('catches a log rewritten between commits (consistency), a bad RNG reveal and liabilities above the vault', () => {
    const { commits, onChain, consistency } = commitLog([4, 6]);
    // The second commit comes from a log whose history was rewritten: no proof can connect the two roots.
    const rewritten = new MerkleLog();
    rewritten.append(Array.from({ length: 6 }, (_, i) => leafHash(utf8(i === 1 ? 'changed' : `entry ${i}`))));
    const forged = memosSignedBy(
      tx(
        [ANCHOR],
        [
          {
            text: commitMemo({
              entryCount: 6,
              betLogRoot: toHex(rewritten.root(6)),
              stateRoot: 'ab'.repeat(32),
              totalLiabilities: 5_000_000n,
              rngIndex: 1,
              rngRevealHex: chain.valueHex(1),
              manifestHash: NO_MANIFEST_HASH,
            }),
            accounts: [0],
          },
        ],
      ),
      ANCHOR,
    )[0]!;
    const forgedCommits = [commits[0]!, { ...commits[1]!, betLogRoot: toHex(rewritten.root(6)), signature: forged.signature }];
    const forgedChain = [...onChain.filter((m) => m.memo.kind !== 'commit' || m.memo.entryCount !== 6), forged];
    const fromRewritten = (a: number, b: number) => proofToHex(rewritten.consistencyProof(a, b));
    expect(failed(verifyCommitLog({ commits: forgedCommits, onChain: forgedChain, consistency: fromRewritten, rng: new RngAnchors() }))).toEqual([
      'consistency',
    ]);
    expect(failed(verifyCommitLog({ commits: forgedCommits, onChain: forgedChain, consistency, rng: new RngAnchors() }))).toEqual(['consistency']);
    expect(failed(verifyCommitLog({ commits, onChain, consistency: () => undefined, rng: new RngAnchors() }))).toEqual(['consistency']);

    // The chain decides: a published reveal other than the memo's is a mismatch; a memo's own bad reveal fails its link.
    const wrongReveal = commits.map((c, i) => (i === 1 ? { ...c, rngReveal: chain.valueHex(2) } : c));
    expect(failed(verifyCommitLog({ commits: wrongReveal, onChain, consistency, rng: new RngAnchors() }))).toEqual(['published-on-chain']);
    const badMemo = memosSignedBy(
      tx(
        [ANCHOR],
        [
          {
            text: commitMemo({
              entryCount: 6,
              betLogRoot: commits[1]!.betLogRoot,
              stateRoot: 'ab'.repeat(32),
              totalLiabilities: 5_000_000n,
              rngIndex: 1,
              rngRevealHex: chain.valueHex(2),
              manifestHash: NO_MANIFEST_HASH,
            }),
            accounts: [0],
          },
        ],
      ),
      ANCHOR,
    )[0]!;
    const badChain = [...onChain.filter((m) => m.memo.kind !== 'commit' || m.memo.entryCount !== 6), badMemo];
    const badPublished = commits.map((c, i) => (i === 1 ? { ...c, rngReveal: chain.valueHex(2), signature: badMemo.signature } : c));
    expect(failed(verifyCommitLog({ commits: badPublished, onChain: badChain, consistency, rng: new RngAnchors() }))).toEqual(['commit-rng-reveals']);

    const { commits: c2, onChain: o2, consistency: k2 } = commitLog([1, 2], 7_000_001n);
    expect(failed(verifyCommitLog({ commits: c2, onChain: o2, consistency: k2, rng: new RngAnchors(), vaultBalance: 7_000_000n }))).toEqual(['solvency']);
  });

  it('fails when no chain head was ever committed by the anchor key', () => {
    const { commits, onChain, consistency } = commitLog([1]);
    const report = verifyCommitLog({ commits, onChain: onChain.filter((m) => m.memo.kind !== 'rng-head'), consistency, rng: new RngAnchors() });
    expect(failed(report)).toEqual(expect.arrayContaining(['rng-heads', 'commit-rng-reveals']));
  });
});
