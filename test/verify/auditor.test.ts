// The verifier as an outside auditor (issue 14), against a real service that cheats: it reads the log as
// tiles (not one receipt a request), takes the log's size from the chain (entries the API hides are a
// violation), keeps its keys and vault from the pinned trust root (a fake vault fails), catches a
// re-used RNG index, a bet by a key the wallet had revoked, and a fork at the newest commit, and
// `manifests` alone catches a manifest fork.
import http from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { address } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS, findAssociatedTokenPda } from '@solana-program/token';
import { startTestService, type TestService } from '../helpers/service.ts';
import { Player, http as request } from '../helpers/player.ts';
import { commitMemo } from '../../protocol/memo.ts';
import { signManifest, type Manifest } from '../../protocol/manifest.ts';
import { cli, postAnchorMemo, waitAnchored } from './helpers.ts';

let svc: TestService;
let tmp: string;
let a: Player;
let b: Player;

const failedChecks = (out: string): string[] => [...out.matchAll(/✗ ([\w[\].-]+):/g)].map((m) => m[1]!);

/** Pauses the service's anchoring (a halted anchor queue takes no job), so Redis can be changed under it. */
async function halted<T>(fn: () => Promise<T>): Promise<T> {
  const { redis, keys } = svc.wiring;
  await redis.hset(keys.anchor(), 'halted', 'paused by the test');
  try {
    return await fn();
  } finally {
    await redis.hdel(keys.anchor(), 'halted');
  }
}

beforeAll(async () => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'pfws-auditor-'));
  svc = await startTestService({ ANCHOR_MAX_DELAY_MS: '100', ANCHOR_MAX_ENTRIES: '4', MANIFEST_MAX_DELAY_MS: '100', MANIFEST_MAX_EVENTS: '6' });
  a = await new Player(svc.api, svc.rpcUrl).onboard(100);
  b = await new Player(svc.api, svc.rpcUrl).onboard(100);
  for (let i = 0; i < 6; i++) await (i % 2 ? a : b).playDice({ wager: 1, target: 30 + i * 5 });
  await waitAnchored(svc);
}, 120_000);

afterAll(async () => {
  await svc?.cleanup();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('an honest service', () => {
  it('is verified through tiles, 256 entries a request, never one receipt a request, with progress lines', async () => {
    const hits: string[] = [];
    const target = new URL(svc.api);
    const proxy = http.createServer(async (req, res) => {
      hits.push(req.url!);
      const upstream = await fetch(`${target.origin}${req.url}`);
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/octet-stream' });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const port = (proxy.address() as { port: number }).port;
    try {
      const run = await cli({ ...svc, api: `http://127.0.0.1:${port}/api` }, tmp, ['all', '--json'], { progressEveryMs: 0 });
      expect(run.code, run.out).toBe(0);
      expect(JSON.parse(run.out).verdict).toBe('verified');
      expect(hits.filter((h) => h.startsWith('/api/receipts/'))).toEqual([]);
      expect(hits.filter((h) => h.includes('/bet-log/tile/entries/'))).toEqual(['/api/protocol/v1/bet-log/tile/entries/000.p/6']);
      expect(hits.filter((h) => h.includes('/bet-log/receipts/'))).toEqual(['/api/protocol/v1/bet-log/receipts/000.p/6']);
      // Not a terminal: plain progress lines, each with a rate and an ETA.
      expect(run.progress).toMatch(/^bet-log entries: \d+\/6 \(\d+%\) \d+\/s ETA \S+/m);
    } finally {
      proxy.close();
    }
  });
});

describe('the chain it reads', () => {
  it("is the RPC the user names; the API's only by default, with a warning; never one of another cluster", async () => {
    const defaulted = await cli(svc, tmp, ['log'], { rpc: false });
    expect(defaulted.code).toBe(0);
    expect(defaulted.err).toContain('warning: reading the chain through');
    expect(defaulted.err).toContain('pass --rpc <url> to use one you trust');
    const named = await cli(svc, tmp, ['log']);
    expect(named.err).not.toContain('warning');
    // An RPC that answers for another cluster: nothing it says can be checked against the pinned root.
    const other = http.createServer(async (req, res) => {
      let body = '';
      for await (const chunk of req) body += chunk;
      const call = JSON.parse(body) as { id: number; method: string };
      if (call.method === 'getGenesisHash') res.end(JSON.stringify({ jsonrpc: '2.0', id: call.id, result: '11111111111111111111111111111111' }));
      else res.end(await (await fetch(svc.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body })).text());
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    try {
      const run = await cli({ ...svc, rpcUrl: `http://127.0.0.1:${(other.address() as { port: number }).port}` }, tmp, ['log']);
      expect(run.code).toBe(2);
      expect(run.out).toMatch(/\? rpc-cluster: could not check: the RPC .* serves genesis 1{32}, the pinned cluster is/);
    } finally {
      other.close();
    }
  });
});

describe('a cheating service', () => {
  it('hides anchored entries: the chain decides the size, so withheld entries are a violation', async () => {
    const { redis, keys } = svc.wiring;
    const committed = Number(await redis.hget(keys.anchor(), 'committedSize'));
    await halted(async () => {
      await redis.hset(keys.anchor(), 'committedSize', String(committed - 3));
      try {
        expect((await request('GET', `${svc.api}/protocol/v1/bet-log/commits`)).body.committedSize).toBe(committed - 3);
        const run = await cli(svc, tmp, ['all']);
        expect(run.code).toBe(1);
        expect(run.out).toMatch(/✗ entries-served: .*entries 0…5: .*has no such tile/);
      } finally {
        await redis.hset(keys.anchor(), 'committedSize', String(committed));
      }
    });
    expect((await cli(svc, tmp, ['all'])).code).toBe(0);
  });

  it('points the API at a fake vault: the pinned trust root and the chain decide', async () => {
    // The vault a lying operator would show: a token account of the same mint with funds, not the keeper's.
    const fake = (await findAssociatedTokenPda({ owner: address(a.address), mint: svc.wiring.setup.usdcMint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
    const real = svc.wiring.setup.vaultTokenAccount;
    svc.wiring.setup.vaultTokenAccount = fake;
    try {
      expect((await request('GET', `${svc.api}/protocol/v1/config`)).body.vaultTokenAccount).toBe(fake);
      const pinned = await cli(svc, tmp, ['log']);
      expect(pinned.code).toBe(1);
      expect(pinned.out).toMatch(/✗ trust-root: .*differs .* in vaultTokenAccount/);
      // A verifier that trusted this vault from the start still finds it is not the keeper's.
      const file = path.join(tmp, 'lying-root.json');
      writeFileSync(file, JSON.stringify((await request('GET', `${svc.api}/protocol/v1/trust-root`)).body));
      const lied = await cli(svc, mkdtempSync(path.join(tmp, 'fresh-')), ['log', '--trust-root', file]);
      expect(lied.code).toBe(1);
      expect(failedChecks(lied.out)).toContain('vault');
      expect(lied.out).toMatch(/✗ vault: .* is not the keeper key's USDC associated token account/);
    } finally {
      svc.wiring.setup.vaultTokenAccount = real;
    }
  });

  it('re-uses an RNG index, then hides the entry that does', async () => {
    const { redis, keys } = svc.wiring;
    await redis.hincrby(keys.rng(), 'next', -1);
    await a.playDice({ wager: 1, target: 50 });
    const size = await waitAnchored(svc);
    const run = await cli(svc, tmp, ['all']);
    expect(run.code).toBe(1);
    expect(run.out).toMatch(/✗ rng-index-unique: 1 of \d+ failed: rng index \d+ of chain .* is used again by dice_/);
    // The operator then reports the log without it; the chain still commits it.
    await halted(async () => {
      await redis.hset(keys.anchor(), 'committedSize', String(size - 1));
      try {
        const hidden = await cli(svc, tmp, ['all']);
        expect(hidden.code).toBe(1);
        expect(hidden.out).toMatch(/✗ entries-served/);
      } finally {
        await redis.hset(keys.anchor(), 'committedSize', String(size));
      }
    });
  });

  it('accepts bets from a session key the wallet revoked on-chain', async () => {
    const revoke = await b.post('/protocol/v1/player/revoke-session-key-transaction', { sessionPubkey: b.session.publicKey });
    expect(revoke.status).toBe(200);
    await b.signAndSend(revoke.body.transaction);
    await b.post('/protocol/v1/player/sync');
    // The operator keeps the key active and bets with it two minutes later.
    const { redis, keys } = svc.wiring;
    const state = JSON.parse((await redis.hget(keys.sessionKeys(b.address), b.session.publicKey))!);
    expect(state.status).toBe('revoked');
    await redis.hset(keys.sessionKeys(b.address), b.session.publicKey, JSON.stringify({ ...state, status: 'active' }));
    svc.clock.offsetMs = 120_000;
    let receiptId: string;
    try {
      receiptId = (await b.playDice({ wager: 1 })).reveal.receiptId;
    } finally {
      svc.clock.offsetMs = 0;
    }
    await waitAnchored(svc);
    const run = await cli(svc, tmp, ['receipt', receiptId]);
    expect(run.code).toBe(1);
    expect(failedChecks(run.out)).toEqual(['session-key']);
    expect(run.out).toMatch(new RegExp(`✗ session-key: ${b.address} revoked ${b.session.publicKey} in \\w+ before the commit`));
    // An earlier bet by the same key, before the revocation, is fine.
    const earlier = (await request('GET', `${svc.api}/protocol/v1/bet-log/entries?from=0&limit=1`)).body.entries[0].receiptId;
    const ok = await cli(svc, tmp, ['receipt', earlier]);
    expect(ok.out).toMatch(/PASS {2}receipt /);
  });

  it('forks at the newest commit, and forks the manifest chain', async () => {
    const { redis, keys } = svc.wiring;
    const commits = (await request('GET', `${svc.api}/protocol/v1/bet-log/commits?limit=1000`)).body.commits;
    const newest = commits.at(-1);
    await halted(async () => {
      // A second root for the newest size.
      await postAnchorMemo(
        svc,
        commitMemo({ ...newest, totalLiabilities: BigInt(newest.totalLiabilities), rngRevealHex: newest.rngReveal, betLogRoot: 'ee'.repeat(32) }),
      );
      const run = await cli(svc, tmp, ['all']);
      expect(run.code).toBe(1);
      expect(run.out).toMatch(/✗ on-chain-unique: .*2 different roots of size \d+ are committed on-chain \(a fork\)/);
      // A newer commit whose root the entries do not give: the API serves the entry, the root is forged.
      await a.playDice({ wager: 1 });
      const size = newest.entryCount + 1;
      await postAnchorMemo(
        svc,
        commitMemo({
          ...newest,
          entryCount: size,
          totalLiabilities: BigInt(newest.totalLiabilities),
          rngRevealHex: newest.rngReveal,
          betLogRoot: 'dd'.repeat(32),
        }),
      );
      await redis.hset(keys.anchor(), 'committedSize', String(size));
      const forked = await cli(svc, tmp, ['all']);
      expect(forked.code).toBe(1);
      expect(forked.out).toMatch(new RegExp(`✗ commit-roots: .*names root dddddddddddd… for size ${size}, the published entries give`));
      // A manifest signed beside the latest one (same predecessor), named by a commit: a fork `manifests` sees.
      const latest: Manifest = (await request('GET', `${svc.api}/protocol/v1/journal/manifest/latest`)).body.manifest;
      const sibling = signManifest({ ...latest, createdAt: new Date(Date.parse(latest.createdAt) + 1).toISOString() }, svc.wiring.operator.anchor.seed);
      await postAnchorMemo(
        svc,
        commitMemo({
          ...newest,
          entryCount: size + 1,
          totalLiabilities: BigInt(newest.totalLiabilities),
          rngRevealHex: newest.rngReveal,
          manifestHash: sibling.manifestHash,
        }),
      );
      const manifests = await cli(svc, tmp, ['manifests']);
      expect(manifests.code).toBe(1);
      expect(failedChecks(manifests.out)).toEqual(['manifest-fork']);
      expect(manifests.out).toContain(`names manifest ${sibling.manifestHash.slice(0, 12)}…, which is not on the served chain (a fork)`);
    });
  });
});
