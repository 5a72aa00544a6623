// Anchoring and verification end to end: real bets are anchored on localnet, then the CLI verifies every
// receipt, the commit log and the manifest chain from public data alone, and catches tampering.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { buildApp } from '../../api/app.ts';
import { apiDepsOf } from '../../wiring.ts';
import { Player, http } from '../helpers/player.ts';
import { runCli } from '../../verifier/cli.ts';
import { settleDueBets } from '../../games/deadlines.ts';
import { sweeperMineColumn } from '../../protocol/sweeper.ts';
import { settleDice } from '../../protocol/dice.ts';
import { verifyInclusionHex } from '../../protocol/verify/proofs.ts';
import { verifyStateProofResponse } from '../../protocol/verify/state-proof.ts';
import { memosSignedBy, type RpcTransaction } from '../../protocol/verify/chain.ts';
import { verifyManifest, eventRootHex, NO_MANIFEST_HASH } from '../../protocol/manifest.ts';

let svc: TestService;
let config: Record<string, string>;
let tmp: string;
const receiptIds: string[] = [];
const players: Player[] = [];

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli([...args, '--rpc', svc.rpcUrl, '--state', tmp, '--quiet'], {
    out: (t) => (out += `${t}\n`),
    err: (t) => (err += `${t}\n`),
    env: {},
    tty: false,
  });
  return { code, out, err };
}

async function rpc(method: string, params: unknown[]): Promise<any> {
  const res = await fetch(svc.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

const receipt = async (id: string) => (await http('GET', `${svc.api}/receipts/${id}`)).body.receipt;

async function waitAnchored(): Promise<void> {
  const { redis, keys } = svc.wiring;
  for (let i = 0; i < 200; i++) {
    const [size, state] = await Promise.all([redis.llen(keys.betLog()), redis.hmget(keys.anchor(), 'committedSize', 'filled')]);
    if (size > 0 && Number(state[0]) === size && Number(state[1]) === size) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the bet log was not anchored in time');
}

/** s at the RNG index the next commit is given: with it a test knows a turn's outcome before it commits. */
async function nextRngValue(): Promise<string> {
  const [chainId, next] = await svc.wiring.redis.hmget(svc.wiring.keys.rng(), 'chainId', 'next');
  return svc.wiring.rngChains.get(Number(chainId)).valueHex(Number(next));
}

/** A Sweeper ticket with two safe rows and a cashout, outcomes forced by knowing the next RNG value. */
async function playSweeper(player: Player): Promise<string> {
  const open = await player.openTicket('easy', 1);
  expect(open.status, JSON.stringify(open.body)).toBe(200);
  const ticketId = open.body.ticket.id as string;
  const turn = async (prepared: Awaited<ReturnType<Player['prepareChoice']>>) => {
    const c = await player.commitSweeper(prepared.res.body);
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    const r = await player.revealSweeper(prepared.res.body.betPayloadHash, prepared.clientSeedRaw, c.body.ack.revealMessage);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body;
  };
  for (let row = 0; row < 2; row++) {
    const s = await nextRngValue();
    let prepared: Awaited<ReturnType<Player['prepareChoice']>> | null = null;
    for (let attempt = 0; attempt < 64 && !prepared; attempt++) {
      const p = await player.prepareChoice(ticketId, row, attempt % 4);
      const mine = sweeperMineColumn({ rngValueHex: s, clientSeedRaw: p.clientSeedRaw, betPayloadHash: p.res.body.betPayloadHash, mode: 'easy' });
      if (mine !== attempt % 4) prepared = p;
    }
    await turn(prepared!);
  }
  const last = await turn(await player.prepareCashout(ticketId));
  return last.receiptId as string;
}

/**
 * A Dice bet played to its end; with `end`, seeds are drawn until the outcome the next RNG value gives is that one
 * (the index is assigned at commit, and nothing else commits meanwhile).
 */
async function playDiceTo(player: Player, end: 'won' | 'lost' | null, opts: { wager: number; target: number; direction: 'under' | 'over' }): Promise<string> {
  if (end === null) return (await player.playDice(opts)).reveal.receiptId as string;
  const s = await nextRngValue();
  for (let attempt = 0; attempt < 32; attempt++) {
    const p = await player.prepareDice(opts);
    expect(p.res.status, JSON.stringify(p.res.body)).toBe(200);
    const { betPayload, betPayloadHash } = p.res.body;
    const { direction, targetBps } = betPayload.params;
    const { won } = settleDice({ rngValueHex: s, clientSeedRaw: p.clientSeedRaw, betPayloadHash, direction, targetBps, wagerMicro: BigInt(betPayload.wager) });
    if (won !== (end === 'won')) continue;
    const c = await player.commitDice(p.res.body);
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    const r = await player.revealDice(betPayloadHash, p.clientSeedRaw, c.body.ack.revealMessage);
    expect(r.body.betLogEntry?.status, JSON.stringify(r.body)).toBe(end);
    return r.body.receiptId as string;
  }
  throw new Error(`no seed in 32 gave a Dice bet that ${end}`);
}

beforeAll(async () => {
  // Small batches, so there are several commits and consistency proofs between them.
  svc = await startTestService({ ANCHOR_MAX_DELAY_MS: '100', ANCHOR_MAX_ENTRIES: '3', MANIFEST_MAX_DELAY_MS: '100', MANIFEST_MAX_EVENTS: '5' });
  config = (await http('GET', `${svc.api}/protocol/v1/config`)).body;
  tmp = mkdtempSync(path.join(os.tmpdir(), 'pfws-verify-'));
  const a = await new Player(svc.api, svc.rpcUrl).onboard(100);
  const b = await new Player(svc.api, svc.rpcUrl).onboard(60);
  players.push(a, b);
  // The first two end as a loss and a win whatever the draw: the statuses below must all be there.
  const ends = ['lost', 'won', null, null] as const;
  for (let i = 0; i < 4; i++) receiptIds.push(await playDiceTo(a, ends[i]!, { wager: 1 + i, target: 30 + i * 10, direction: i % 2 ? 'over' : 'under' }));
  receiptIds.push(await playSweeper(b));
  // A bet settled from the recovery store (no reveal signature) and one forfeited at the deadline.
  const recovered = await b.prepareDice({ wager: 1, target: 60 });
  const c1 = await b.commitDice(recovered.res.body);
  await b.post('/protocol/v1/dice/recovery-seed', { betPayloadHash: recovered.res.body.betPayloadHash, clientSeedRaw: recovered.clientSeedRaw });
  const forfeited = await b.prepareDice({ wager: 2, target: 40 });
  const c2 = await b.commitDice(forfeited.res.body);
  expect([c1.status, c2.status]).toEqual([200, 200]);
  svc.clock.offsetMs = 24 * 3_600_000 + 1_000;
  try {
    await settleDueBets(svc.wiring.worker!.deadlines);
  } finally {
    svc.clock.offsetMs = 0;
  }
  receiptIds.push(`dice_${recovered.res.body.betPayloadHash.slice(0, 32)}`, `dice_${forfeited.res.body.betPayloadHash.slice(0, 32)}`);
  for (let i = 0; i < 3; i++) receiptIds.push((await b.playDice({ wager: 1, target: 50 })).reveal.receiptId);
  await waitAnchored();
}, 120_000);

afterAll(async () => {
  await svc?.cleanup();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('anchored receipts', () => {
  it('fill every anchor field and tie the receipt to a commit memo the anchor key alone signed', async () => {
    const size = await svc.wiring.redis.llen(svc.wiring.keys.betLog());
    expect(size).toBe(receiptIds.length);
    const statuses = new Set<string>();
    for (const id of receiptIds) {
      const r = await receipt(id);
      statuses.add(`${r.game}:${r.status}`);
      const a = r.anchor;
      expect(a.status).toBe('committed');
      expect(a.commitId).toBe(`commit-${a.entryCount}`);
      expect(a.commitAccount).toBe(config.operatorPublicKey);
      expect(a.commitTransactionUrl).toBe(`${config.explorerBaseUrl}/tx/${a.commitSignature}?cluster=custom&customUrl=${encodeURIComponent(svc.rpcUrl)}`);
      expect(a.commitExplorerUrl).toBe(
        `${config.explorerBaseUrl}/address/${config.operatorPublicKey}?cluster=custom&customUrl=${encodeURIComponent(svc.rpcUrl)}`,
      );
      expect(a.betLogIndex).toBeLessThan(a.entryCount);
      expect(a.entryCount - a.betLogIndex).toBeLessThanOrEqual(3);
      expect(verifyInclusionHex(a.betLogEntryHash, a.betLogIndex, a.entryCount, a.betLogProof, a.betLogRoot)).toEqual({ ok: true });
      const tx = (await rpc('getTransaction', [a.commitSignature, { encoding: 'json', maxSupportedTransactionVersion: 0 }])) as RpcTransaction;
      const memos = memosSignedBy(tx, config.operatorPublicKey!);
      expect(memos).toHaveLength(1);
      expect(memos[0]!.memo).toMatchObject({ kind: 'commit', entryCount: a.entryCount, betLogRoot: a.betLogRoot, stateRoot: a.stateRoot });
      expect(tx.transaction.message.header.numRequiredSignatures).toBe(1);
      expect(tx.transaction.message.accountKeys[0]).toBe(config.operatorPublicKey);
    }
    expect(statuses).toEqual(new Set(['dice:won', 'dice:lost', 'dice:forfeited', 'sweeper:won']));
  });

  it('commits each size once on-chain, each memo revealing only an index already disclosed', async () => {
    const sigs = (await rpc('getSignaturesForAddress', [config.operatorPublicKey, { limit: 1000 }])) as { signature: string }[];
    const commits: { entryCount: number; rngIndex: number }[] = [];
    for (const { signature } of sigs) {
      const tx = await rpc('getTransaction', [signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
      for (const m of memosSignedBy(tx, config.operatorPublicKey!)) if (m.memo.kind === 'commit') commits.push(m.memo);
    }
    const sizes = commits.map((c) => c.entryCount);
    expect(new Set(sizes).size).toBe(sizes.length);
    expect(Math.max(...sizes)).toBe(receiptIds.length);
    const published = (await http('GET', `${svc.api}/protocol/v1/bet-log/commits`)).body;
    expect(published.commits.map((c: { entryCount: number }) => c.entryCount).sort((x: number, y: number) => x - y)).toEqual([...sizes].sort((x, y) => x - y));
    // Every revealed index belongs to a receipt whose player already had it.
    const disclosed = new Set<number>();
    for (const id of receiptIds) {
      const r = await receipt(id);
      for (const t of r.game === 'dice' ? [r.verifierPayload] : r.verifierPayload.turns) if (t.rngReveal) disclosed.add(t.ack.rngIndex);
    }
    for (const c of commits) if (c.rngIndex > 0) expect(disclosed.has(c.rngIndex)).toBe(true);
  });
});

describe('public reads', () => {
  it('pages commits and serves consistency proofs only between committed sizes', async () => {
    const first = (await http('GET', `${svc.api}/protocol/v1/bet-log/commits?limit=1`)).body;
    expect(first.commits).toHaveLength(1);
    expect(first.nextAfterEntryCount).toBe(first.commits[0].entryCount);
    const all = (await http('GET', `${svc.api}/protocol/v1/bet-log/commits?limit=1000`)).body;
    expect(all.nextAfterEntryCount).toBeNull();
    expect(all.committedSize).toBe(receiptIds.length);
    const [a, b] = [all.commits[0], all.commits[all.commits.length - 1]];
    const proof = (await http('GET', `${svc.api}/protocol/v1/bet-log/consistency?from=${a.entryCount}&to=${b.entryCount}`)).body;
    expect(proof).toMatchObject({ from: a.entryCount, to: b.entryCount, fromRoot: a.betLogRoot, toRoot: b.betLogRoot });
    const notCommitted = all.commits.some((c: { entryCount: number }) => c.entryCount === b.entryCount - 1) ? b.entryCount + 1 : b.entryCount - 1;
    expect((await http('GET', `${svc.api}/protocol/v1/bet-log/consistency?from=${a.entryCount}&to=${notCommitted}`)).body.error.code).toBe('NOT_FOUND');
    expect((await http('GET', `${svc.api}/protocol/v1/bet-log/consistency?from=${b.entryCount}&to=${a.entryCount}`)).status).toBe(400);
    const entries = (await http('GET', `${svc.api}/protocol/v1/bet-log/entries?from=1&limit=2`)).body;
    expect(entries.entries.map((e: { index: number }) => e.index)).toEqual([1, 2]);
    expect(entries.entries[0].receiptId).toBe(receiptIds[1]);
  });

  it('serves signed manifests chained from the first, and the events they cover', async () => {
    const latest = (await http('GET', `${svc.api}/protocol/v1/journal/manifest/latest`)).body.manifest;
    expect(verifyManifest(latest, config.operatorPublicKey!)).toEqual({ ok: true });
    let m = latest;
    let covered = 0;
    const chain = [];
    while (m) {
      chain.push(m);
      covered += m.eventCount;
      if (m.previousManifestHash === NO_MANIFEST_HASH) break;
      m = (await http('GET', `${svc.api}/protocol/v1/journal/manifests/${m.previousManifestHash}`)).body.manifest;
    }
    expect(chain[chain.length - 1].previousManifestHash).toBe(NO_MANIFEST_HASH);
    expect(chain.some((x) => x.eventCount === 5)).toBe(true);
    const events = (await http('GET', `${svc.api}/protocol/v1/journal/events?afterSeq=0&limit=1000`)).body.events;
    expect(events.slice(0, covered).map((e: { seq: number }) => e.seq)).toEqual(Array.from({ length: covered }, (_, i) => i + 1));
    const genesis = chain[chain.length - 1];
    expect(eventRootHex(events.slice(0, genesis.eventCount))).toBe(genesis.eventRoot);
    const mid = (await http('GET', `${svc.api}/protocol/v1/journal/events?afterSeq=7&limit=2`)).body.events;
    expect(mid.map((e: { seq: number }) => e.seq)).toEqual([8, 9]);
    // Empty values mean "not given", and a page larger than 1000 is served as 1000.
    expect((await http('GET', `${svc.api}/protocol/v1/journal/events?afterSeq=&limit=3`)).body.events).toEqual(events.slice(0, 3));
    expect((await http('GET', `${svc.api}/protocol/v1/journal/events?limit=5000`)).body.events).toEqual(events.slice(0, 1000));
    expect((await http('GET', `${svc.api}/protocol/v1/bet-log/commits?afterEntryCount=&limit=5000`)).status).toBe(200);
    expect((await http('GET', `${svc.api}/protocol/v1/journal/events?limit=0`)).body.error.code).toBe('INVALID_REQUEST');
    // Query coercion would read 1e309 as Infinity; it is refused like any other non-integer.
    for (const q of [
      'bet-log/entries?from=1e309',
      'journal/events?afterSeq=1e309',
      'bet-log/commits?afterEntryCount=9007199254740993',
      'bet-log/consistency?from=1&to=1e309',
    ]) {
      const res = await http('GET', `${svc.api}/protocol/v1/${q}`);
      expect([res.status, res.body.error.code], q).toEqual([400, 'INVALID_REQUEST']);
    }
    for (const p of players) expect(JSON.stringify(events)).not.toContain(p.address);
    expect((await http('GET', `${svc.api}/protocol/v1/journal/manifests/${'0'.repeat(64)}`)).status).toBe(404);
  });

  it('gives each player a state proof under the committed root, summing to the memo total', async () => {
    const [a] = players;
    // The proof is under the latest commit; a play settled just before may land in the next one.
    const liabilityNow = async () => {
      const status = (await a!.get('/protocol/v1/player/status')).body;
      return Math.round((status.balance + status.stakedInPlay + status.pendingWithdrawals) * 1e6);
    };
    let body = (await a!.get('/protocol/v1/player/state-proof')).body;
    for (let i = 0; i < 50 && Number(body.leaf.liability) !== (await liabilityNow()); i++) {
      await new Promise((r) => setTimeout(r, 200));
      body = (await a!.get('/protocol/v1/player/state-proof')).body;
    }
    expect(Number(body.leaf.liability)).toBe(await liabilityNow());
    const tx = await rpc('getTransaction', [body.commitSignature, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    expect(verifyStateProofResponse(body, a!.address, tx, config.operatorPublicKey!)).toMatchObject({ ok: true });
    expect(verifyStateProofResponse(body, players[1]!.address, tx, config.operatorPublicKey!).ok).toBe(false);
    // The worker keeps each tree it commits: an API answers from it and builds none of its own.
    const deps = apiDepsOf(svc.wiring);
    const app = await buildApp(deps);
    try {
      const res = await app.inject({ method: 'GET', url: '/api/protocol/v1/player/state-proof', headers: { authorization: `Bearer ${a!.token}` } });
      expect(res.statusCode).toBe(200);
      const held = res.json();
      const heldTx = await rpc('getTransaction', [held.commitSignature, { encoding: 'json', maxSupportedTransactionVersion: 0 }]);
      expect(verifyStateProofResponse(held, a!.address, heldTx, config.operatorPublicKey!)).toMatchObject({ ok: true });
      expect(deps.stateProofs.builds).toBe(0);
    } finally {
      await app.close();
    }
    expect((await http('GET', `${svc.api}/protocol/v1/player/state-proof`)).status).toBe(401);
    const file = path.join(tmp, 'state-proof.json');
    writeFileSync(file, JSON.stringify(body));
    expect((await cli(['state-proof', '--api', svc.api, '--file', file, '--wallet', a!.address])).code).toBe(0);
    const forged = await cli(['state-proof', '--api', svc.api, '--file', file, '--wallet', players[1]!.address]);
    expect(forged.code).toBe(1);
    expect(forged.out).toContain('leaf-id');
    // `--token=…`: a base64url token may begin with '-', which a separate argument would read as an option.
    expect((await cli(['state-proof', '--api', svc.api, `--token=${a!.token}`])).code).toBe(0);
    // A token the service does not know: nothing could be checked, and the service's own reason says why.
    const refused = await cli(['state-proof', '--api', svc.api, '--token=not-a-token']);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/state-proof: The bearer token is unknown/);
  });
});

describe('the pfws-verify CLI', () => {
  it('verifies every receipt, the commit log and the manifest chain: `all` exits 0', async () => {
    const { code, out } = await cli(['all', '--api', svc.api, '--json']);
    const result = JSON.parse(out);
    expect(result.results.filter((r: { ok: boolean }) => !r.ok)).toEqual([]);
    expect(code).toBe(0);
    // Every entry the chain commits, each receipt rebuilt and checked, summed up in one report.
    expect(result.results.map((r: { subject: string }) => r.subject)).toContain(`bet log entries 0…${receiptIds.length - 1} (${receiptIds.length} verified)`);
    const names = result.results.flatMap((r: { checks: { name: string; status: string }[] }) => r.checks.filter((c) => c.status === 'pass').map((c) => c.name));
    for (const name of [
      'commitment',
      'session-signature',
      'session-key',
      'reveal-signature',
      'ack-signature',
      'rng-reveal',
      'outcome',
      'payout',
      'receipt-fields',
      'bet-log-entry',
      'inclusion',
      'on-chain-commit',
      'commit-roots',
      'entry-leaves',
      'checkpoint',
      'vault',
      'solvency',
      'manifest-events',
      'manifest-fork',
      'rng-index-unique',
      'trust-root',
      'rpc-cluster',
    ]) {
      expect(names).toContain(name);
    }
    // --since starts at a tile boundary before that time; a small log is one tile.
    const since = await cli(['all', '--api', svc.api, '--since', new Date(Date.now() + 48 * 3_600_000).toISOString()]);
    expect(since.code).toBe(0);
  });

  it('runs as `pfws-verify` through the bin script, for one receipt and for the log', async () => {
    const run = promisify(execFile);
    const bin = path.resolve(import.meta.dirname, '../../bin/pfws-verify.mjs');
    const env = { ...process.env, PFWS_VERIFY_HOME: tmp };
    const r = await run(process.execPath, [bin, 'receipt', receiptIds[0]!, '--api', svc.api, '--rpc', svc.rpcUrl, '--verbose'], { env });
    expect(r.stdout).toMatch(/PASS {2}receipt dice_/);
    expect(r.stdout).toContain('✓ rng-reveal');
    expect(r.stdout).toContain('✓ session-key');
    const l = await run(process.execPath, [bin, 'log', '--api', svc.api, '--rpc', svc.rpcUrl], { env });
    expect(l.stdout).toContain('Verified: every check passed');
    await expect(run(process.execPath, [bin, 'receipt', 'dice_nope', '--api', svc.api, '--rpc', svc.rpcUrl], { env })).rejects.toMatchObject({ code: 2 });
  });

  const tamper = async (id: string, change: (r: any) => void) => {
    const r = structuredClone(await receipt(id));
    change(r);
    const file = path.join(tmp, `${id}-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(file, JSON.stringify({ receipt: r }));
    return cli(['receipt', file, '--api', svc.api]);
  };

  it('accepts an untouched saved receipt and catches each kind of tampering with a clear reason', async () => {
    const [dice] = receiptIds;
    const sweeper = receiptIds[4]!;
    expect((await tamper(dice!, () => {})).code).toBe(0);
    expect((await tamper(sweeper, () => {})).code).toBe(0);
    const cases: [string, string, (r: any) => void, RegExp][] = [
      [dice!, 'payout', (r) => (r.payout += 1), /✗ payout: .*payout is/],
      [dice!, 'seed', (r) => (r.verifierPayload.clientSeedRaw = 'ab'.repeat(32)), /✗ commitment: sha256\(clientSeedRaw\)/],
      [dice!, 'proof step', (r) => (r.anchor.betLogProof[0] = 'cd'.repeat(32)), /✗ inclusion: inclusion proof fails/],
      [dice!, 'session signature', (r) => (r.verifierPayload.commitSignature = r.verifierPayload.revealSignature), /✗ session-signature/],
      [dice!, 'reveal signature', (r) => (r.verifierPayload.revealSignature = r.verifierPayload.commitSignature), /✗ reveal-signature/],
      [dice!, 'ack signature', (r) => (r.verifierPayload.ack.rngIndex += 1), /✗ ack-signature: ackHash does not match/],
      // Checked against the nearest value below it (the head, or a commit memo's disclosed one), or against the value
      // itself where a commit memo disclosed that very index: which, depends on when the commits landed.
      [
        dice!,
        'rng reveal',
        (r) => (r.verifierPayload.rngReveal = 'ef'.repeat(32)),
        /✗ rng-reveal: (sha256\^|rng reveal for index \d+ differs from the value already anchored)/,
      ],
      [dice!, 'root', (r) => (r.anchor.betLogRoot = 'ab'.repeat(32)), /✗ inclusion/],
      [dice!, 'commit signature', (r) => (r.anchor.commitSignature = `${r.anchor.commitSignature.slice(0, -2)}11`), /✗ on-chain-commit/],
      [
        sweeper,
        'mine column',
        (r) => (r.verifierPayload.betLogEntry.turns[0].mineColumn = (r.verifierPayload.betLogEntry.turns[0].mineColumn + 1) % 4),
        /✗ (bet-log-entry|entry-hash)/,
      ],
      [sweeper, 'sweeper payout', (r) => (r.result.payoutMicro = '1'), /✗ payout/],
    ];
    for (const [id, what, change, reason] of cases) {
      const { code, out } = await tamper(id, change);
      expect(code, `${what}: ${out}`).toBe(1);
      expect(out, what).toMatch(reason);
    }
  });
});

describe('tampering on the service side', () => {
  it('catches an event changed after its manifest was signed', async () => {
    const { redis, keys } = svc.wiring;
    const all = await redis.xrange(keys.journal(), '-', '+');
    const [id, fields] = all[2]!;
    const data = fields[fields.indexOf('data') + 1]!;
    // Streams cannot be edited in place: rebuild the stream with the same ids and one event changed.
    const rebuild = async (changed: string) => {
      const multi = redis.multi().del(keys.journal());
      for (const [eid, f] of all) multi.xadd(keys.journal(), eid, ...(eid === id ? f.map((v, i) => (i === f.indexOf('data') + 1 ? changed : v)) : f));
      await multi.exec();
    };
    await rebuild(data.replace(/"amount":"\d+"/, '"amount":"1"'));
    try {
      const { code, out } = await cli(['manifests', '--api', svc.api]);
      expect(code).toBe(1);
      expect(out).toMatch(/✗ manifest-events: .*changed after signing/);
    } finally {
      await rebuild(data);
    }
    expect((await cli(['manifests', '--api', svc.api])).code).toBe(0);
  });

  it('catches a manifest chain with a dropped link', async () => {
    const { redis, keys } = svc.wiring;
    const latest = (await http('GET', `${svc.api}/protocol/v1/journal/manifest/latest`)).body.manifest;
    const dropped = latest.previousManifestHash;
    const stored = await redis.hget(keys.manifests(), dropped);
    await redis.hdel(keys.manifests(), dropped);
    try {
      const { code, out } = await cli(['manifests', '--api', svc.api]);
      expect(code).toBe(1);
      expect(out).toMatch(/✗ manifest-links: .*not published \(a dropped link\)/);
    } finally {
      await redis.hset(keys.manifests(), dropped, stored!);
    }
  });

  it('catches a published root that does not match the chain', async () => {
    const { redis, keys } = svc.wiring;
    const member = (await redis.zrange(keys.anchorCommits(), '1', '1'))[0]!;
    const record = JSON.parse(member);
    const score = record.entryCount;
    const forged = JSON.stringify({ ...record, betLogRoot: 'ab'.repeat(32) });
    await redis.multi().zrem(keys.anchorCommits(), member).zadd(keys.anchorCommits(), score, forged).exec();
    try {
      const { code, out } = await cli(['log', '--api', svc.api]);
      expect(code).toBe(1);
      expect(out).toMatch(/✗ published-on-chain: .*the on-chain memo differs/);
      expect(out).toMatch(/✗ on-chain-published: .*is not in the published list/);
    } finally {
      await redis.multi().zrem(keys.anchorCommits(), forged).zadd(keys.anchorCommits(), score, member).exec();
    }
    expect((await cli(['log', '--api', svc.api])).code).toBe(0);
  });
});
