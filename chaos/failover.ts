// The failover suite: the service in Sentinel mode (REDIS_SENTINELS, REDIS_WAIT_REPLICAS=1) against a primary, a
// replica and three Sentinels of its own; under load, the primary is killed and the replica hung; then every
// acknowledged bet, the books, conservation against the vault and the verifier (no fork).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Keys } from '../store/keys.ts';
import { BetJournal } from './bet-journal.ts';
import type { FailoverHarness, FailoverProfile } from './harness.ts';
import { ChaosPlayer, Load, emptyStats, playerPool, type LoadContext } from './load.ts';
import { freePort, sleep } from './ports.ts';
import { SeededRandom } from './random.ts';
import { RedisHa } from './redis-ha.ts';
import { emptyFigures, passed, type ChaosReport, type RoundReport } from './report.ts';
import { ServiceProcess } from './service-process.ts';
import { beginRound, endRound } from './rounds/common.ts';
import { primaryKillRound, replicaLossRound } from './rounds/failover.ts';
import { finalRound } from './rounds/final.ts';
import { serviceEnv } from './suite.ts';

export interface FailoverRunOptions {
  profile: FailoverProfile;
  seed: string;
  workDir?: string;
  keep?: boolean;
  log?: (line: string) => void;
}

const DEPOSIT = 100;
const MASTER_NAME = 'pfws-chaos';

export async function runFailover(options: FailoverRunOptions): Promise<ChaosReport> {
  const t0 = Date.now();
  const { profile, seed } = options;
  const log = options.log ?? (() => undefined);
  const rng = new SeededRandom(`${seed}:failover`);
  const workDir = options.workDir ?? mkdtempSync(path.join(os.tmpdir(), 'pfws-failover-'));
  const ha = new RedisHa({
    dir: path.join(workDir, 'redis'),
    name: MASTER_NAME,
    downAfterMs: profile.downAfterMs,
    maxLagS: profile.maxLagS,
    appendfsync: 'everysec',
  });
  const rounds: RoundReport[] = [];
  const report: ChaosReport = { seed, profile: profile.name, rounds, durationMs: 0, workDir };
  log(`failover: profile ${profile.name}, seed ${seed}, ${profile.players} players, work dir ${workDir}`);
  const prefix = `failover-${seed.replace(/[^A-Za-z0-9]/g, '').slice(0, 24)}`;
  let service: ServiceProcess | null = null;
  let pool: ReturnType<typeof playerPool>['pool'] | null = null;
  const redisClient = { client: null as ReturnType<RedisHa['client']> | null };
  try {
    await ha.start();
    const env = {
      ...serviceEnv(
        profile.hardening,
        { api: await freePort(), rpc: await freePort() },
        // Only the credentials and database of the URL count in Sentinel mode: a connection that ignored the
        // Sentinels would find nothing here.
        'redis://127.0.0.1:1/0',
        path.join(workDir, 'data'),
        prefix,
      ),
      REDIS_SENTINELS: ha.sentinelList,
      REDIS_SENTINEL_NAME: MASTER_NAME,
      REDIS_WAIT_REPLICAS: '1',
      REDIS_WAIT_TIMEOUT_MS: String(profile.waitTimeoutMs),
      // The failover under test is Redis's: a second API process would only add its start-up to the run.
      API_WORKERS: '1',
    };
    service = new ServiceProcess({ env, logFile: path.join(workDir, 'service.log'), apiWorkers: 1 });
    const startMs = await service.start();
    const players = playerPool(service.api, profile.players + 8);
    pool = players.pool;
    const journal = new BetJournal();
    const ctx: LoadContext = { round: 0, stats: emptyStats() };
    const allPlayers: ChaosPlayer[] = [];
    const makePlayer = (): ChaosPlayer => {
      const p = new ChaosPlayer(allPlayers.length, players.pool, players.apiPath, service!.rpcUrl, journal, rng.fork(`player-${allPlayers.length}`), ctx);
      allPlayers.push(p);
      return p;
    };
    const load = Array.from({ length: profile.players }, makePlayer);
    const probe = makePlayer();
    const prober = makePlayer();
    for (let i = 0; i < allPlayers.length; i += 8) await Promise.all(allPlayers.slice(i, i + 8).map((p) => p.onboard(DEPOSIT)));
    redisClient.client = ha.client();
    const h: FailoverHarness = {
      profile,
      rng,
      ha,
      prober,
      ctx,
      log,
      load: new Load(load),
      allPlayers,
      service,
      redisClient: redisClient.client,
      keys: new Keys(prefix),
      probe,
      journal,
    };
    const plan: { kind: string; run: (round: number) => Promise<RoundReport> }[] = [
      {
        kind: 'steady',
        run: async (r) => {
          const steady = beginRound(
            h,
            r,
            'steady',
            `steady load of ${profile.players} players on a primary, a replica and 3 Sentinels (service started in ${startMs} ms)`,
          );
          h.load.start();
          await sleep(profile.steadyMs);
          return endRound(h, steady);
        },
      },
      { kind: 'redis:failover', run: (r) => primaryKillRound(h, r) },
      { kind: 'redis:replica-loss', run: (r) => replicaLossRound(h, r) },
      { kind: 'final', run: (r) => finalRound(h, r, rounds, { loadPlayers: profile.players, anchorWaitMs: profile.anchorWaitMs }) },
    ];
    for (const [i, step] of plan.entries()) {
      const started = Date.now();
      try {
        rounds.push(await step.run(i));
      } catch (err) {
        h.log(`round ${i} (${step.kind}) stopped: ${(err as Error).stack ?? err}`);
        await h.load.stop().catch(() => undefined);
        rounds.push({
          round: i,
          kind: step.kind,
          tried: step.kind,
          figures: { ...emptyFigures(), acked: ctx.stats.acked, settled: ctx.stats.settled, status5xx: ctx.stats.status5xx, requests: ctx.stats.requests },
          checks: [{ name: 'round ran to its end', held: false, detail: String((err as Error).message ?? err) }],
          notes: service.errorLines(5),
        });
        for (const node of ha.nodes) node.resume();
      }
      const last = rounds[rounds.length - 1]!;
      last.durationMs = Date.now() - started;
      h.log(`  → ${last.checks.filter((c) => c.held).length}/${last.checks.length} checks held, ${last.figures.acked} acked`);
    }
    const code = await service.stop();
    rounds[rounds.length - 1]?.checks.push({ name: 'SIGTERM stops the service cleanly', held: code === 0, detail: `exit code ${code}` });
  } finally {
    await service?.stop().catch(() => undefined);
    service?.close();
    await pool?.close().catch(() => undefined);
    redisClient.client?.disconnect();
    await ha.stop();
    report.durationMs = Date.now() - t0;
    const complete = rounds.some((r) => r.kind === 'final');
    if (complete && passed(report) && !options.keep && !options.workDir) rmSync(workDir, { recursive: true, force: true });
  }
  return report;
}
