// `pfws-verify monitor`: each poll verifies only what is new since the saved state, and history rewritten
// behind it (a changed manifest, a hidden entry, a re-used RNG index, a fork, a changed entry) is reported
// as a JSON line, with a non-zero exit and the saved state left as it was.
import net from 'node:net';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http } from '../helpers/player.ts';
import { commitMemo } from '../../protocol/memo.ts';
import { toHex } from '../../protocol/encoding.ts';
import { signManifest, type Manifest } from '../../protocol/manifest.ts';
import { stateFileOf } from '../../verifier/state.ts';
import { cli, lines, postAnchorMemo, waitAnchored, type CliRun } from './helpers.ts';

let svc: TestService;
let player: Player;
let tmp: string;
/** The state after the last clean poll; each rewrite below is checked from a copy of it. */
let baseline: string;

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

const monitor = (stateDir: string): Promise<CliRun> => cli(svc, stateDir, ['monitor', '--once']);
const poll = (run: CliRun) => lines(run).find((l) => l.type === 'poll')!;
const violations = (run: CliRun) => lines(run).filter((l) => l.type === 'violation');

/** A copy of the baseline state; asserts a rewrite is reported and the copy's state is not moved on. */
async function expectReported(check: string, reason: RegExp): Promise<void> {
  const dir = mkdtempSync(path.join(tmp, 'case-'));
  cpSync(baseline, dir, { recursive: true });
  const file = stateFileOf(dir, svc.api);
  const before = readFileSync(file, 'utf8');
  const run = await monitor(dir);
  expect(run.code, run.out).toBe(1);
  expect(violations(run).map((v) => v.check)).toContain(check);
  expect(violations(run).find((v) => v.check === check)!.reason).toMatch(reason);
  expect(poll(run).verdict).toBe('violation');
  expect(readFileSync(file, 'utf8')).toBe(before);
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'pfws-monitor-'));
  // Fixed ports: the monitor keeps its state per API URL.
  svc = await startTestService({
    PORT: String(await freePort()),
    LOCALNET_PORT: String(await freePort()),
    ANCHOR_MAX_DELAY_MS: '100',
    ANCHOR_MAX_ENTRIES: '3',
    MANIFEST_MAX_DELAY_MS: '100',
    MANIFEST_MAX_EVENTS: '4',
  });
  player = await new Player(svc.api, svc.rpcUrl).onboard(100);
  for (let i = 0; i < 4; i++) await player.playDice({ wager: 1, target: 40 });
  await waitAnchored(svc);
}, 120_000);

afterAll(async () => {
  await svc?.cleanup();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('the monitor', () => {
  it('verifies everything once, then only what is new on each poll', async () => {
    const state = path.join(tmp, 'live');
    const first = await monitor(state);
    expect(first.code, first.out).toBe(0);
    expect(poll(first)).toMatchObject({ type: 'poll', verdict: 'verified', fromSize: 0, newEntries: 4, size: 4 });
    for (let i = 0; i < 3; i++) await player.playDice({ wager: 1, target: 60 });
    await waitAnchored(svc);
    const second = await monitor(state);
    expect(second.code, second.out).toBe(0);
    expect(poll(second)).toMatchObject({ verdict: 'verified', fromSize: 4, newEntries: 3, size: 7 });
    const idle = await monitor(state);
    expect(poll(idle)).toMatchObject({ verdict: 'verified', fromSize: 7, newEntries: 0, size: 7 });
    // The state grows with commits and chains, not with entries: no entry or receipt is kept.
    const saved = JSON.parse(readFileSync(stateFileOf(state, svc.api), 'utf8'));
    expect(Object.keys(saved).sort()).toEqual(
      ['anchorNewest', 'api', 'manifest', 'range', 'roots', 'rngHeads', 'rngPoints', 'trustRootFingerprint', 'updatedAt', 'used', 'version', 'wallets'].sort(),
    );
    expect(Object.values(saved.used)).toEqual([[[1, 7]]]);
    baseline = state;
  });

  it('reports a manifest chain rewritten behind it', async () => {
    const { redis, keys } = svc.wiring;
    const latest: Manifest = (await http('GET', `${svc.api}/protocol/v1/journal/manifest/latest`)).body.manifest;
    const record = JSON.parse((await redis.hget(keys.manifests(), latest.manifestHash))!);
    const previous = JSON.parse((await redis.hget(keys.manifests(), latest.previousManifestHash))!);
    // The operator re-signs the last two manifests with a changed one in between.
    const changed = signManifest(
      { ...previous.manifest, createdAt: new Date(Date.parse(previous.manifest.createdAt) + 1).toISOString() },
      svc.wiring.operator.anchor.seed,
    );
    const rechained = signManifest({ ...latest, previousManifestHash: changed.manifestHash }, svc.wiring.operator.anchor.seed);
    await redis.hset(
      keys.manifests(),
      changed.manifestHash,
      JSON.stringify({ ...previous, manifest: changed }),
      rechained.manifestHash,
      JSON.stringify({ ...record, manifest: rechained }),
    );
    await redis.hset(keys.manifest(), 'latest', rechained.manifestHash);
    try {
      await expectReported('manifest-history', /no longer passes through .* which was verified before/);
    } finally {
      await redis.hset(keys.manifest(), 'latest', latest.manifestHash);
    }
  });

  it('reports new entries the chain commits but the API hides', async () => {
    for (let i = 0; i < 2; i++) await player.playDice({ wager: 1 });
    const size = await waitAnchored(svc);
    const { redis, keys } = svc.wiring;
    await redis.hset(keys.anchor(), 'halted', 'paused by the test');
    await redis.hset(keys.anchor(), 'committedSize', String(size - 2));
    try {
      await expectReported('entries-served', /has no such tile yet/);
    } finally {
      await redis.hset(keys.anchor(), 'committedSize', String(size));
      await redis.hdel(keys.anchor(), 'halted');
    }
  });

  it('reports an RNG index used again after it', async () => {
    await svc.wiring.redis.hincrby(svc.wiring.keys.rng(), 'next', -3);
    await player.playDice({ wager: 1 });
    await waitAnchored(svc);
    await expectReported('rng-index-unique', /rng index \d+ of chain .* is used again/);
  });

  it('reports a fork: a commit of a size it verified, with another root', async () => {
    const commits = (await http('GET', `${svc.api}/protocol/v1/bet-log/commits?limit=1000`)).body.commits;
    const old = commits[0];
    await postAnchorMemo(svc, commitMemo({ ...old, totalLiabilities: BigInt(old.totalLiabilities), rngRevealHex: old.rngReveal, betLogRoot: 'ab'.repeat(32) }));
    await expectReported(
      'commit-order',
      new RegExp(`a commit of size ${old.entryCount} .* appeared after size 7 was verified, with another root \\(a fork\\)`),
    );
  });

  it('reports an entry changed behind it once the changed log is anchored', async () => {
    const { redis, keys, stores } = svc.wiring;
    // The operator rewrites entry 1's leaf, rebuilds its tree from the changed log and anchors it with its own key. The
    // service itself refuses to sign a log that does not hold the chain's newest commit (test/e2e/anchor-fork-guard.test.ts),
    // so a cheat signs and publishes the commit by hand.
    await redis.hset(keys.anchor(), 'halted', 'paused by the test');
    await player.playDice({ wager: 1 });
    const [item] = await redis.lrange(keys.betLog(), 1, 1);
    await redis.lset(keys.betLog(), 1, `${'0'.repeat(64)}${item!.slice(64)}`);
    const levels = await redis.keys(`${keys.prefix}:betlog:nodes:*`);
    await redis.del(...levels, keys.betLogTree());
    const size = await redis.llen(keys.betLog());
    const tree = await stores.anchors.loadTree();
    await tree.extendTo(size);
    const last = (await stores.anchors.latestCommit())!;
    const fields = { ...last, entryCount: size, betLogRoot: toHex(tree.log.root(size)) };
    const memo = commitMemo({ ...fields, totalLiabilities: BigInt(last.totalLiabilities), rngRevealHex: last.rngReveal });
    const signature = await postAnchorMemo(svc, memo);
    const record = { ...fields, commitId: `commit-${size}`, previousEntryCount: last.entryCount, memo, signature, committedAt: new Date().toISOString() };
    await redis.zadd(keys.anchorCommits(), size, JSON.stringify(record));
    await redis.hset(keys.anchor(), 'committedSize', String(size));
    await expectReported('commit-roots', /names root .* the published entries give .*\(a fork or a rewritten entry\)/);
  }, 120_000);
});
