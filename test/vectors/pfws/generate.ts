// Writes the negative conformance vectors of this folder: `npx tsx test/vectors/pfws/generate.ts`.
// Everything is built from fixed seeds through protocol/ (the same functions the service uses), then each
// case changes one thing, re-signing with the right key where needed so that exactly the named check trips.
import { writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519.js';
import { signAck, ackBodyOf, type Ack } from '../../../protocol/ack.ts';
import { betPayloadHashOf, type DiceBetPayload, type SweeperBetPayload } from '../../../protocol/bet-payload.ts';
import { buildDiceSettlement } from '../../../protocol/dice-receipt.ts';
import { buildSweeperSettlement, type SweeperTurnInput } from '../../../protocol/sweeper-receipt.ts';
import { sweeperMineColumn } from '../../../protocol/sweeper.ts';
import { RngChain } from '../../../protocol/rng-chain.ts';
import { MerkleLog } from '../../../protocol/merkle-log.ts';
import { leafHash, proofToHex } from '../../../protocol/merkle.ts';
import { canonicalize } from '../../../protocol/jcs.ts';
import { toBase64, toHex, utf8 } from '../../../protocol/encoding.ts';
import { signText } from '../../../protocol/signatures.ts';
import { commitMemo, MEMO_PROGRAM_ID, rngHeadMemo, revokeMemo, setupMemo, type CommitMemo } from '../../../protocol/memo.ts';
import { signCheckpoint } from '../../../protocol/checkpoint.ts';
import { buildManifestBody, signManifest, NO_MANIFEST_HASH, type JournalEvent, type Manifest } from '../../../protocol/manifest.ts';
import { buildStateTree, encodeStateProof, stateLeafId } from '../../../protocol/state-tree.ts';
import { encodeEntryBundle } from '../../../protocol/tlog-tiles.ts';
import type { TrustRoot } from '../../../protocol/trust-root.ts';

type Json = any;
const seed = (label: string) => createHash('sha256').update(`pfws vectors ${label}`).digest();
const key = (label: string) => ({ seed: seed(label), publicKey: base58.encode(ed25519.getPublicKey(seed(label))) });
const session = key('session');
const ack = key('ack');
const anchor = key('anchor');
const wallet = key('wallet');
const alias = 'p_vectors';
const chain = new RngChain({ secret: seed('rng'), length: 64 });
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const iso = (s: number) => new Date(T0 + s * 1000).toISOString();
let sigN = 0;
const txSig = () => base58.encode(createHash('sha256').update(`tx ${sigN++}`).digest()) + base58.encode(createHash('sha256').update(`tx2 ${sigN}`).digest());

/** A `json`-encoded getTransaction result with one Memo v2 instruction signed by `signer` alone. */
function memoTx(signer: string, text: string, slot: number, blockTime: number): Json {
  return {
    slot,
    blockTime,
    transaction: {
      signatures: [txSig()],
      message: { accountKeys: [signer, MEMO_PROGRAM_ID], header: { numRequiredSignatures: 1 }, instructions: [{ programIdIndex: 1, accounts: [0], data: base58.encode(utf8(text)) }] },
    },
    meta: { err: null },
  };
}
const sigOf = (tx: Json): string => tx.transaction.signatures[0];

let nonce = 0;
function bet(payload: Omit<DiceBetPayload, 'protocol' | 'player' | 'sessionPubkey' | 'betNonce' | 'expiresAt' | 'commitment'> | Omit<SweeperBetPayload, 'protocol' | 'player' | 'sessionPubkey' | 'betNonce' | 'expiresAt' | 'commitment'>, index: number, at: number, clientSeedRaw: string) {
  const full = {
    protocol: 'pfws/v1',
    player: alias,
    sessionPubkey: session.publicKey,
    betNonce: nonce++,
    commitment: createHash('sha256').update(Buffer.from(clientSeedRaw, 'hex')).digest('hex'),
    expiresAt: iso(at + 300),
    ...payload,
  } as DiceBetPayload | SweeperBetPayload;
  const hash = betPayloadHashOf(full);
  const a = signAck({ betPayloadHash: hash, betNonce: full.betNonce, rngIndex: index, rngChainHead: chain.headHex, committedAt: iso(at), revealDeadline: iso(at + 86_400) }, ack.seed);
  return {
    betPayload: full,
    betPayloadHash: hash,
    commitSignature: toBase64(ed25519.sign(Buffer.from(hash, 'hex'), session.seed)),
    ack: a,
    revealSignature: signText(a.revealMessage, session.seed),
    clientSeedRaw,
    rngReveal: chain.valueHex(index),
  };
}

const asDice = <T extends { betPayload: unknown }>(b: T) => ({ ...b, betPayload: b.betPayload as DiceBetPayload });

// Three dice bets (a win, a loss, a forfeit) and a Sweeper ticket with a cleared row and a cashout.
const seedHex = (n: number) => seed(`client ${n}`).toString('hex');
const receipts: Json[] = [];
const d1 = asDice(bet({ game: 'dice', wager: '2000000', params: { direction: 'under', targetBps: 9000 } }, 1, 10, seedHex(1)));
receipts.push(buildDiceSettlement({ ...d1, reveal: { clientSeedRaw: d1.clientSeedRaw, revealSignature: d1.revealSignature, via: 'reveal' }, settledAt: iso(11), source: 'api' }).receipt);
const d2 = asDice(bet({ game: 'dice', wager: '1000000', params: { direction: 'over', targetBps: 9000 } }, 2, 20, seedHex(2)));
receipts.push(buildDiceSettlement({ ...d2, reveal: { clientSeedRaw: d2.clientSeedRaw, revealSignature: null, via: 'recovery' }, settledAt: iso(21), source: 'mcp' }).receipt);
const d3 = asDice(bet({ game: 'dice', wager: '1000000', params: { direction: 'under', targetBps: 5000 } }, 3, 30, seedHex(3)));
receipts.push(buildDiceSettlement({ ...d3, reveal: null, rngReveal: null, settledAt: iso(30 + 86_401), source: 'api' }).receipt);
const ticketId = 'tk_vectors';
const turns: SweeperTurnInput[] = [];
for (let n = 10; ; n++) {
  const t = bet({ game: 'sweeper', wager: '1000000', params: { ticketId, mode: 'medium', turn: 'choice', row: 0, choiceColumn: 1 } }, 4, 40, seedHex(n));
  if (sweeperMineColumn({ rngValueHex: t.rngReveal, clientSeedRaw: t.clientSeedRaw, betPayloadHash: t.betPayloadHash, mode: 'medium' }) === 1) {
    nonce--;
    continue;
  }
  turns.push(t as SweeperTurnInput);
  break;
}
turns.push(bet({ game: 'sweeper', wager: '1000000', params: { ticketId, mode: 'medium', turn: 'cashout', rowsWon: 1 } }, 5, 50, seedHex(99)) as SweeperTurnInput);
receipts.push(buildSweeperSettlement({ ticketId, mode: 'medium', wager: 1_000_000n, player: alias, source: 'api', turns, settledAt: iso(51) }).receipt);

// The log: one commit of all four entries, anchored on-chain; the receipts carry their proofs.
const entries = receipts.map((r) => utf8(canonicalize(r.verifierPayload.betLogEntry)));
const log = new MerkleLog();
log.append(entries.map((e) => leafHash(e)));
const headTx = memoTx(anchor.publicKey, rngHeadMemo(1, chain.headHex), 1, T0 / 1000);
const commit: CommitMemo = { entryCount: 4, betLogRoot: toHex(log.root(4)), stateRoot: 'ab'.repeat(32), totalLiabilities: 5_000_000n, rngIndex: 5, rngRevealHex: chain.valueHex(5), manifestHash: NO_MANIFEST_HASH };
const commitTx = memoTx(anchor.publicKey, commitMemo(commit), 100, T0 / 1000 + 100);
receipts.forEach((r, i) => {
  r.anchor = {
    ...r.anchor,
    status: 'committed',
    commitId: 'commit-4',
    commitSignature: sigOf(commitTx),
    commitTransactionUrl: null,
    commitAccount: anchor.publicKey,
    commitExplorerUrl: null,
    betLogRoot: commit.betLogRoot,
    betLogIndex: i,
    betLogProof: proofToHex(log.inclusionProof(i, 4)),
    entryCount: 4,
    stateRoot: commit.stateRoot,
  };
});
const setupTx = memoTx(wallet.publicKey, setupMemo(wallet.publicKey, session.publicKey), 2, T0 / 1000 + 1);
const keyEvent = (tx: Json, kind: 'setup' | 'revoke') => ({ kind, wallet: wallet.publicKey, sessionPubkey: session.publicKey, signature: sigOf(tx), slot: tx.slot, blockTime: tx.blockTime });

const context = {
  ackPublicKey: ack.publicKey,
  anchorPublicKey: anchor.publicKey,
  rngHeads: [chain.headHex],
  transactions: { [sigOf(commitTx)]: commitTx },
  sessionKeys: { [session.publicKey]: { wallet: wallet.publicKey, events: [keyEvent(setupTx, 'setup')] } },
};

// ---- receipts.json: one tampered receipt per receipt check.
const [win, , forfeit, ticket] = receipts;
const resign = (r: Json, change: (a: Ack) => Partial<Ack>, at: Json = r.verifierPayload) => {
  at.ack = signAck({ ...ackBodyOf(at.ack), ...change(at.ack) }, ack.seed);
};
const receiptCases: [string, string, Json, (r: Json) => void][] = [
  ['payload-hash', 'betPayloadHash is not the hash of betPayload', win, (r) => (r.verifierPayload.betPayloadHash = 'ab'.repeat(32))],
  ['protocol', 'the payload names another protocol (signed as such by the player)', win, (r) => {
    const vp = r.verifierPayload;
    vp.betPayload.protocol = 'pfws/v0';
    vp.betPayloadHash = betPayloadHashOf(vp.betPayload);
    vp.commitSignature = toBase64(ed25519.sign(Buffer.from(vp.betPayloadHash, 'hex'), session.seed));
  }],
  ['session-signature', 'the commit signature is by another key', win, (r) => (r.verifierPayload.commitSignature = toBase64(ed25519.sign(Buffer.from(r.verifierPayload.betPayloadHash, 'hex'), wallet.seed)))],
  ['ack-signature', 'the ack body changed after the operator signed it', win, (r) => (r.verifierPayload.ack.rngIndex += 1)],
  ['ack-binding', 'a validly signed ack of another nonce', win, (r) => resign(r, (a) => ({ betNonce: a.betNonce + 1 }))],
  ['commit-in-time', 'a validly signed ack committed after the payload expired', win, (r) => resign(r, () => ({ committedAt: iso(10 + 301) }))],
  ['commitment', 'a revealed seed that is not the committed one', win, (r) => (r.verifierPayload.clientSeedRaw = 'cd'.repeat(32))],
  ['reveal-signature', 'the reveal signature is over another message', win, (r) => (r.verifierPayload.revealSignature = signText('pfws:v1:reveal:x', session.seed))],
  ['rng-reveal', 'an RNG reveal that does not chain to the committed head', win, (r) => (r.verifierPayload.rngReveal = chain.valueHex(2))],
  ['forfeit-deadline', 'a bet forfeited before its reveal deadline', forfeit, (r) => (r.verifierPayload.betLogEntry.settledAt = iso(31))],
  ['game', 'a dice receipt with another game id', win, (r) => (r.gameId = 'dice:protocol-v0')],
  ['verifier-payload', 'the proof material is missing', win, (r) => delete r.verifierPayload],
  ['receipt-fields', 'input.clientSeedRaw is not the revealed seed', win, (r) => (r.input.clientSeedRaw = 'ef'.repeat(32))],
  ['outcome', 'result.won is flipped', win, (r) => (r.result.won = !r.result.won)],
  ['payout', 'result.payout is changed', win, (r) => (r.result.payout += 1)],
  ['bet-log-entry', 'the entry pays another amount', win, (r) => (r.verifierPayload.betLogEntry.payout = '1')],
  ['entry-hash', 'the anchor names another leaf', win, (r) => (r.anchor.betLogEntryHash = 'ab'.repeat(32))],
  ['anchored', 'an anchor status the format does not have', win, (r) => (r.anchor.status = 'committed-ish')],
  ['inclusion', 'an inclusion proof with a changed step', win, (r) => (r.anchor.betLogProof[0] = 'cd'.repeat(32))],
  ['commit-account', 'the anchor names another commit account', win, (r) => (r.anchor.commitAccount = wallet.publicKey)],
  ['on-chain-commit', 'the commit transaction is not on-chain', win, (r) => (r.anchor.commitSignature = txSig())],
  ['state-root', 'the anchor names another state root', win, (r) => (r.anchor.stateRoot = 'cd'.repeat(32))],
  ['session-key', 'the key is used by a bet committed before its setup', win, (r) => resign(r, () => ({ committedAt: iso(-120) }))],
  ['turn[1].ticket-binding', 'a turn of another ticket', ticket, (r) => {
    const t = r.verifierPayload.turns[1];
    t.betPayload.params.ticketId = 'tk_other';
    t.betPayloadHash = betPayloadHashOf(t.betPayload);
    t.commitSignature = toBase64(ed25519.sign(Buffer.from(t.betPayloadHash, 'hex'), session.seed));
  }],
  ['turn[1].rules', 'a cashout naming rows not cleared', ticket, (r) => {
    const t = r.verifierPayload.turns[1];
    t.betPayload.params.rowsWon = 2;
    t.betPayloadHash = betPayloadHashOf(t.betPayload);
    t.commitSignature = toBase64(ed25519.sign(Buffer.from(t.betPayloadHash, 'hex'), session.seed));
  }],
  ['ticket-ended', 'the last turn is dropped', ticket, (r) => r.verifierPayload.turns.pop()],
  ['turn[2].order', 'a turn after the cashout', ticket, (r) => r.verifierPayload.turns.push(structuredClone(r.verifierPayload.turns[1]))],
];
const receiptsFile = {
  description:
    'Receipts and the chain facts they rest on. Every `valid` receipt passes every check; each `invalid` case changes one thing and must fail the check it names (others may fail too). ' +
    '`context.transactions` are getTransaction results (encoding json) by signature; `context.sessionKeys` is what the chain shows for each session key: the setup and revoke memos its wallet signed.',
  context,
  valid: receipts,
  invalid: receiptCases.map(([check, description, base, change]) => {
    const receipt = structuredClone(base);
    change(receipt);
    return { check, description, receipt };
  }),
};

// ---- audit.json: the log entry by entry (entry bundle, receipts, on-chain roots).
const bundle = (list: Uint8Array[]) => toBase64(encodeEntryBundle(list));
const auditBase = { entryBundle: bundle(entries), receipts, roots: { 4: commit.betLogRoot } };
const auditFile = {
  description:
    'A whole log: `entryBundle` is a C2SP entry bundle (base64) of the entries in order, `receipts` their receipts, `roots` the root the chain commits per size. ' +
    'Each leaf must be the leaf rebuilt from its receipt, every committed root must be reproduced, and each RNG index used once.',
  context,
  valid: auditBase,
  invalid: [
    { check: 'entry-leaves', description: 'the published entry differs from the one its receipt rebuilds', ...auditBase, entryBundle: bundle(entries.map((e, i) => (i === 1 ? utf8(canonicalize({ ...JSON.parse(Buffer.from(e).toString()), settledAt: iso(22) })) : e))) },
    { check: 'commit-roots', description: 'the chain commits a root the entries do not give (a fork)', ...auditBase, roots: { 4: 'ee'.repeat(32) } },
    { check: 'entries-served', description: 'an entry the chain commits comes without its receipt', ...auditBase, receipts: [...receipts.slice(0, 3), null] },
    { check: 'rng-index-unique', description: 'the same bet logged twice: its RNG index is used again', ...auditBase, entryBundle: bundle([...entries, entries[0]!]), receipts: [...receipts, receipts[0]] },
  ],
};

// ---- log.json: the anchor key's commit memos, the published list and consistency proofs.
const memoOf = (tx: Json) => ({ signature: sigOf(tx), slot: tx.slot, blockTime: tx.blockTime, text: Buffer.from(base58.decode(tx.transaction.message.instructions[0].data)).toString() });
const bigLog = new MerkleLog();
bigLog.append(Array.from({ length: 9 }, (_, i) => leafHash(utf8(`entry ${i}`))));
const commitAt = (n: number, slot: number, over: Partial<CommitMemo> = {}) => {
  const c: CommitMemo = { entryCount: n, betLogRoot: toHex(bigLog.root(n)), stateRoot: 'ab'.repeat(32), totalLiabilities: 5_000_000n, rngIndex: n, rngRevealHex: chain.valueHex(n), manifestHash: NO_MANIFEST_HASH, ...over };
  return { memo: c, tx: memoTx(anchor.publicKey, commitMemo(c), slot, T0 / 1000 + slot) };
};
const commits = [commitAt(3, 10), commitAt(5, 20), commitAt(9, 30)];
const published = (list: typeof commits) =>
  list.map(({ memo, tx }) => ({ commitId: `commit-${memo.entryCount}`, entryCount: memo.entryCount, betLogRoot: memo.betLogRoot, stateRoot: memo.stateRoot, totalLiabilities: memo.totalLiabilities.toString(), rngIndex: memo.rngIndex, rngReveal: memo.rngRevealHex, manifestHash: memo.manifestHash, signature: sigOf(tx) }));
const proofs = { '3:5': proofToHex(bigLog.consistencyProof(3, 5)), '5:9': proofToHex(bigLog.consistencyProof(5, 9)) };
const logBase = { onChain: [memoOf(headTx), ...commits.map((c) => memoOf(c.tx))], published: published(commits), consistency: proofs, vaultBalance: '5000000' };
const forked = commitAt(5, 40, { betLogRoot: 'ee'.repeat(32) });
// The size-3 root again, after size 9, under another memo text.
const rewoundTx = commitAt(3, 40, { rngIndex: 4, rngRevealHex: chain.valueHex(4) }).tx;
const badReveal = commitAt(9, 30, { rngRevealHex: chain.valueHex(8) });
const logFile = {
  description:
    'The anchor key\'s memos as the chain shows them (`onChain`: signature, slot, text, each signed by the anchor key alone), the service\'s published commit list and consistency proofs (from:to), and the vault balance (micro-USDC).',
  context: { anchorPublicKey: anchor.publicKey },
  valid: logBase,
  invalid: [
    { check: 'rng-heads', description: 'no chain head was ever committed', ...logBase, onChain: logBase.onChain.slice(1) },
    { check: 'on-chain-unique', description: 'two roots committed for one size', ...logBase, onChain: [...logBase.onChain, memoOf(forked.tx)] },
    { check: 'commit-order', description: 'a later commit of a smaller size', ...logBase, onChain: [...logBase.onChain, memoOf(rewoundTx)] },
    { check: 'consistency', description: 'the proof between two committed sizes does not verify', ...logBase, consistency: { ...proofs, '5:9': proofs['3:5'] } },
    { check: 'commit-rng-reveals', description: 'a memo reveals a value off the committed chain', ...logBase, onChain: [memoOf(headTx), memoOf(commits[0]!.tx), memoOf(commits[1]!.tx), memoOf(badReveal.tx)], published: published([commits[0]!, commits[1]!, badReveal]) },
    { check: 'published-on-chain', description: 'the published list shows a root the chain does not hold', ...logBase, published: logBase.published.map((c, i) => (i === 1 ? { ...c, betLogRoot: 'cd'.repeat(32) } : c)) },
    { check: 'on-chain-published', description: 'an on-chain commit is left out of the published list', ...logBase, published: logBase.published.slice(0, 2) },
    { check: 'solvency', description: 'the newest liabilities exceed the vault', ...logBase, vaultBalance: '4999999' },
  ],
};

// ---- checkpoint.json: signed notes against the committed roots.
const origin = 'pfws.example/api/protocol/v1/bet-log';
const note = (size: number, rootHex: string, signer = anchor) => signCheckpoint({ origin, size, rootHex }, signer.seed, signer.publicKey);
const roots = { 3: toHex(bigLog.root(3)), 5: toHex(bigLog.root(5)), 9: toHex(bigLog.root(9)) };
const checkpointFile = {
  description: 'C2SP checkpoints (signed notes) of the log with `roots` committed on-chain by size; the note must be signed by the anchor key under the key name `origin`, and name a committed size and its root.',
  context: { origin, anchorPublicKey: anchor.publicKey, roots, chainSize: 9 },
  valid: [note(9, roots[9]), note(5, roots[5])],
  invalid: [
    { check: 'checkpoint-signature', description: 'signed by another key', note: note(9, roots[9], ack) },
    { check: 'checkpoint-signature', description: 'the size changed after signing', note: note(9, roots[9]).replace('\n9\n', '\n8\n') },
    { check: 'checkpoint-signature', description: 'another origin', note: signCheckpoint({ origin: 'other.example/log', size: 9, rootHex: roots[9] }, anchor.seed, anchor.publicKey) },
    { check: 'checkpoint', description: 'a signed root other than the committed one (a fork)', note: note(9, 'ee'.repeat(32)) },
    { check: 'checkpoint', description: 'a signed size the anchor key never committed', note: note(4, toHex(bigLog.root(4))) },
  ],
};

// ---- manifests.json: a signed chain, its events, and the manifests the commits name.
const events: JournalEvent[] = Array.from({ length: 7 }, (_, i) => ({ id: `ev${i + 1}`, seq: i + 1, type: 'bet_settled', at: iso(100 + i), data: { player: alias, amount: String(i) } }));
const manifests: Manifest[] = [];
for (const [from, to] of [[0, 3], [3, 5], [5, 7]] as const) {
  manifests.push(signManifest(buildManifestBody(events.slice(from, to), manifests.at(-1)?.manifestHash ?? NO_MANIFEST_HASH, anchor.publicKey, iso(200 + from)), anchor.seed));
}
const sibling = signManifest(buildManifestBody(events.slice(3, 5), manifests[0]!.manifestHash, anchor.publicKey, iso(999)), anchor.seed);
const manifestBase = { manifests, events, commitManifests: [manifests[1]!.manifestHash, manifests[2]!.manifestHash] };
const manifestsFile = {
  description: 'A manifest chain (oldest first), the public events (seq from 1), and the manifest hash each on-chain commit names, in chain order.',
  context: { anchorPublicKey: anchor.publicKey },
  valid: manifestBase,
  invalid: [
    { check: 'manifest-signatures', description: 'a manifest signed by another key', ...manifestBase, manifests: [manifests[0], signManifest(manifests[1]!, ack.seed), manifests[2]] },
    { check: 'manifest-links', description: 'a link dropped from the chain', ...manifestBase, manifests: [manifests[0], manifests[2]] },
    { check: 'manifest-events', description: 'an event changed after its manifest was signed', ...manifestBase, events: events.map((e) => (e.seq === 4 ? { ...e, data: { ...(e.data as Json), amount: '1000' } } : e)) },
    { check: 'manifest-fork', description: 'a commit names a manifest signed beside the chain', ...manifestBase, commitManifests: [sibling.manifestHash, manifests[2]!.manifestHash] },
  ],
};

// ---- state-proof.json: a player's leaf under the committed state root.
const walletBytes = base58.decode(wallet.publicKey);
const salt = seed('salt');
const id = stateLeafId(walletBytes, salt);
const tree = buildStateTree([{ id, liability: 5_000_000n }, { id: seed('other leaf'), liability: 7_000_000n }, { id: seed('third leaf'), liability: 1n }]);
const stateCommit = commitAt(9, 50, { stateRoot: toHex(tree.root), totalLiabilities: tree.total });
const proof = encodeStateProof(tree.proof(id));
const stateBase = { wallet: wallet.publicKey, epoch: 9, entryCount: 9, commitSignature: sigOf(stateCommit.tx), stateRoot: toHex(tree.root), totalLiabilities: tree.total.toString(), salt: salt.toString('hex'), leaf: { id: proof.id, liability: proof.liability }, proof };
const stateFile = {
  description: 'Responses of GET /api/protocol/v1/player/state-proof for `wallet`, checked against the commit transaction they name.',
  context: { anchorPublicKey: anchor.publicKey, wallet: wallet.publicKey, transactions: { [sigOf(stateCommit.tx)]: stateCommit.tx } },
  valid: stateBase,
  invalid: [
    { check: 'leaf-id', description: 'a salt that does not give the leaf id', response: { ...stateBase, salt: 'ab'.repeat(32) } },
    { check: 'sum-proof', description: 'a liability the proof does not prove', response: { ...stateBase, proof: { ...proof, liability: '4000000' }, leaf: { ...stateBase.leaf, liability: '4000000' } } },
    { check: 'state-root', description: 'a state root other than the on-chain one', response: { ...stateBase, stateRoot: 'cd'.repeat(32) } },
    { check: 'leaf', description: 'a shown liability other than the proven one', response: { ...stateBase, leaf: { ...stateBase.leaf, liability: '9000000' } } },
    { check: 'total-liabilities', description: 'a shown total other than the on-chain one', response: { ...stateBase, totalLiabilities: '1' } },
  ],
};

// ---- session-keys.json: a key's on-chain history against a bet's commit time.
const revokeTx = memoTx(wallet.publicKey, revokeMemo(wallet.publicKey, session.publicKey), 3, T0 / 1000 + 600);
const sessionFile = {
  description:
    'What the chain shows for a session key (its wallet\'s setup and revoke memos, with slot and block time) and a bet\'s commit time. A setup counts up to 60 s after the commit (block times are estimates); a revocation counts once it is 60 s older than the commit.',
  context: { sessionPubkey: session.publicKey },
  valid: [
    { history: { wallet: wallet.publicKey, sessionPubkey: session.publicKey, events: [keyEvent(setupTx, 'setup')] }, committedAt: iso(10) },
    { history: { wallet: wallet.publicKey, sessionPubkey: session.publicKey, events: [keyEvent(setupTx, 'setup'), keyEvent(revokeTx, 'revoke')] }, committedAt: iso(300) },
  ],
  invalid: [
    { check: 'session-key', description: 'no setup memo at all', history: { wallet: wallet.publicKey, sessionPubkey: session.publicKey, events: [] }, committedAt: iso(10) },
    { check: 'session-key', description: 'set up an hour after the commit', history: { wallet: wallet.publicKey, sessionPubkey: session.publicKey, events: [{ ...keyEvent(setupTx, 'setup'), blockTime: T0 / 1000 + 3600 }] }, committedAt: iso(10) },
    { check: 'session-key', description: 'revoked ten minutes before the commit', history: { wallet: wallet.publicKey, sessionPubkey: session.publicKey, events: [keyEvent(setupTx, 'setup'), keyEvent(revokeTx, 'revoke')] }, committedAt: iso(1200) },
  ],
};

// ---- trust-root.json: a pinned trust root and what a service may later serve.
const trustRoot: TrustRoot = {
  version: 1,
  protocol: 'pfws/v1',
  cluster: 'localnet',
  genesisHash: base58.encode(seed('genesis')),
  usdcMint: base58.encode(seed('mint')),
  vaultTokenAccount: base58.encode(seed('vault')),
  lpMint: base58.encode(seed('lp')),
  memoProgram: MEMO_PROGRAM_ID,
  checkpointOrigin: origin,
  keys: { ack: [{ publicKey: ack.publicKey, validFrom: iso(0) }], anchor: [{ publicKey: anchor.publicKey, validFrom: iso(0) }], keeper: [{ publicKey: key('keeper').publicKey, validFrom: iso(0) }] },
};
const trustFile = {
  description: 'A pinned trust root; a verifier must fail (`trust-root`) when a later read of the service differs in any field.',
  context: { pinned: trustRoot },
  valid: [structuredClone(trustRoot)],
  invalid: [
    { check: 'trust-root', description: 'another vault', served: { ...trustRoot, vaultTokenAccount: base58.encode(seed('fake vault')) } },
    { check: 'trust-root', description: 'another anchor key', served: { ...trustRoot, keys: { ...trustRoot.keys, anchor: [{ publicKey: wallet.publicKey, validFrom: iso(0) }] } } },
    { check: 'trust-root', description: 'another cluster', served: { ...trustRoot, genesisHash: base58.encode(seed('other genesis')) } },
  ],
};

const out = new URL('./', import.meta.url);
const files: Record<string, unknown> = {
  'receipts.json': receiptsFile,
  'audit.json': auditFile,
  'log.json': logFile,
  'checkpoint.json': checkpointFile,
  'manifests.json': manifestsFile,
  'state-proof.json': stateFile,
  'session-keys.json': sessionFile,
  'trust-root.json': trustFile,
};
const bigints = (_k: string, v: unknown) => (typeof v === 'bigint' ? v.toString() : v);
for (const [name, body] of Object.entries(files)) writeFileSync(new URL(name, out), `${JSON.stringify(body, bigints, 1)}\n`);
console.log(`wrote ${Object.keys(files).length} vector files`);
