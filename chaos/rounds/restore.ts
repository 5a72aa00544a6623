// A ledger restored from an older snapshot (issue 23): an RDB snapshot of Redis taken while everything was anchored,
// a round of load after it (anchored and archived), then Redis put back to the snapshot. A start must be refused,
// naming both sizes and roots and `npm run ledger -- recover`; recover must rebuild the tail from the ClickHouse archive
// with the log's root equal to the chain's and nothing left unrebuilt; the service then starts with every player's
// books as they were, and the final round's audit and verifier show no lost bet and no fork.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { serviceBundle } from '../../bin/build-service.ts';
import type { Harness } from '../harness.ts';
import { waitAnchored } from '../books.ts';
import { recoverAll } from '../recovery.ts';
import { sleep, waitFor } from '../ports.ts';
import type { RoundReport } from '../report.ts';
import { beginRound, endRound, recoveryChecks } from './common.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');

/** Runs a script of the repository (`main.ts` as its bundle) as the operator would, with the service's environment. */
async function run(script: string, args: string[], env: Record<string, string>, timeoutMs: number): Promise<{ code: number | null; out: string }> {
  const command = script === 'main.ts' ? [await serviceBundle()] : ['--import', 'tsx', script];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...command, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** Every settled play anchored and filled, and every journal event, receipt and manifest archived. */
async function quiet(h: Harness): Promise<void> {
  const { redisClient: c, keys } = h;
  await waitAnchored(h.service.api, h.profile.anchorWaitMs);
  await waitFor(
    'the log anchored and everything archived',
    async () => {
      const [size, anchor, seq, shipped, progress, manifest] = await Promise.all([
        c.llen(keys.betLog()),
        c.hmget(keys.anchor(), 'committedSize', 'filled'),
        c.get(keys.journalSeq()),
        c.hget(keys.heartbeat('shipper'), 'shippedSeq'),
        c.hmget(keys.archiveProgress(), 'settled', 'anchored', 'manifestSeq'),
        c.hget(keys.manifest(), 'lastSeq'),
      ]);
      return (
        Number(anchor[0]) === size &&
        Number(anchor[1]) === size &&
        Number(shipped) === Number(seq) &&
        Number(progress[0]) === size &&
        Number(progress[1]) === size &&
        Number(progress[2]) === Number(manifest)
      );
    },
    h.profile.anchorWaitMs,
    250,
  );
}

/** What each player with known books shows of itself. */
async function statuses(h: Harness): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  for (const p of h.allPlayers.filter((x) => x.booksKnown)) {
    const s = await p.must('GET', '/protocol/v1/player/status');
    out.set(p.index, JSON.stringify({ balance: s.balance, stakedInPlay: s.stakedInPlay, nonces: s.nonces, totals: s.totals, withdrawals: s.withdrawals }));
  }
  return out;
}

export async function restoreRound(h: Harness, round: number): Promise<RoundReport> {
  const report = beginRound(h, round, 'restore', 'Redis restored from a snapshot older than the newest on-chain commit; `npm run ledger -- recover`');
  const dir = h.redis.options.dir;
  await quiet(h);
  await h.redisClient.save();
  copyFileSync(path.join(dir, 'dump.rdb'), path.join(dir, 'restore-point.rdb'));
  const snapshotSize = await h.redisClient.llen(h.keys.betLog());

  h.load.start();
  await sleep(h.rng.int(...h.profile.faultAfterMs));
  await h.load.stop();
  const settled = await recoverAll(h.allPlayers);
  report.checks.push(...recoveryChecks(settled));
  // The chain must commit past the snapshot for the restore to leave the ledger behind it.
  if ((await h.redisClient.llen(h.keys.betLog())) === snapshotSize) await h.probe.diceBet();
  await quiet(h);
  const size = await h.redisClient.llen(h.keys.betLog());
  const before = await statuses(h);
  report.notes.push(`snapshot at ${snapshotSize} bet-log entries; ${size} anchored and archived before the restore`);

  const apiOnly = await h.apiOnly;
  try {
    await apiOnly.stop();
    await h.service.stop();
    await h.redis.stop();
    // An RDB put back under an AOF server: the snapshot becomes the base of a fresh AOF (Redis 7 multi-part AOF).
    const aof = path.join(dir, 'appendonlydir');
    rmSync(aof, { recursive: true, force: true });
    mkdirSync(aof);
    copyFileSync(path.join(dir, 'restore-point.rdb'), path.join(aof, 'appendonly.aof.1.base.rdb'));
    writeFileSync(path.join(aof, 'appendonly.aof.manifest'), 'file appendonly.aof.1.base.rdb seq 1 type b\n');
    await h.redis.start();
    const restoredSize = await h.redisClient.llen(h.keys.betLog());

    const env = h.service.options.env;
    const refused = await run('main.ts', [], env, 240_000);
    const refusal = /start-up error: (the bet log does not hold the newest on-chain commit[^\n]*)/.exec(refused.out)?.[1] ?? '';
    report.checks.push({
      name: 'a start on the restored ledger is refused, naming both sizes, both roots and the way out',
      held:
        refused.code === 1 &&
        refusal.includes(`holds ${restoredSize} entries (root `) &&
        refusal.includes(`covers ${size} entries (root `) &&
        refusal.includes('npm run ledger -- recover'),
      detail: refusal ? `exit ${refused.code}: ${refusal.slice(0, 300)}` : `exit ${refused.code}: ${refused.out.slice(-300)}`,
    });

    const recovered = await run('ledger/cli.ts', ['recover'], env, 600_000);
    const result = recovered.out.split('\n').find((l) => l.startsWith('ledger recover:')) ?? recovered.out.slice(-300);
    report.checks.push({
      name: 'recover rebuilds the tail from the archive: the root equals the chain commit, nothing unrebuilt, the books balance',
      held:
        recovered.code === 0 &&
        result.includes(`the log holds the chain's newest commit: ${size} entries`) &&
        !recovered.out.includes('NOT REBUILT') &&
        !recovered.out.includes('MISMATCH'),
      detail: `exit ${recovered.code}: ${result}`,
    });
    report.notes.push(...recovered.out.split('\n').filter((l) => /^ {2}(restored|books|note):/.test(l)));

    await h.service.start();
    await apiOnly.start();
    const after = await statuses(h);
    const changed = [...before].filter(([i, s]) => after.get(i) !== s).map(([i]) => i);
    report.checks.push({
      name: "every player's books on the recovered ledger are as before the restore",
      held: changed.length === 0,
      detail: changed.length ? `players ${changed.join(', ')} differ` : `${before.size} players`,
    });
  } finally {
    // Whatever failed above, the rounds after this one need both hosts.
    if (!h.redis.running) await h.redis.start().catch(() => undefined);
    if (!h.service.running) await h.service.start().catch(() => undefined);
    if (!apiOnly.running && h.service.running) await apiOnly.start().catch(() => undefined);
  }
  return endRound(h, report);
}
