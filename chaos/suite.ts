// The standing fault suite: its own Redis (AOF) and service processes, a load of N players, M kill -9 rounds,
// Redis rounds, fuzzing, slow clients and abuse; then every acknowledged bet, the books and the verifier.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { Keys } from '../store/keys.ts';
import { BetJournal } from './bet-journal.ts';
import type { HardeningConfig } from './findings.ts';
import type { Harness, Profile } from './harness.ts';
import { ChaosPlayer, Load, emptyStats, playerPool, type LoadContext } from './load.ts';
import { freePort, sleep } from './ports.ts';
import { SeededRandom } from './random.ts';
import { RedisServer } from './redis-server.ts';
import { emptyFigures, passed, type ChaosReport, type RoundReport } from './report.ts';
import { ServiceProcess } from './service-process.ts';
import { abuseRound } from './rounds/abuse.ts';
import { beginRound, endRound } from './rounds/common.ts';
import { finalRound } from './rounds/final.ts';
import { fuzzRound } from './rounds/fuzz.ts';
import { KILL_KINDS, killRound, type KillKind } from './rounds/kill.ts';
import { redisRound } from './rounds/redis.ts';
import { restoreRound } from './rounds/restore.ts';
import { replyLossRound } from './rounds/reply-loss.ts';
import { ReplyLossProxy } from './redis-proxy.ts';
import { slowClientsRound } from './rounds/slow-clients.ts';
import { startClickHouse } from '../test/helpers/clickhouse.ts';

export interface RunOptions {
  profile: Profile;
  seed: string;
  /** Where Redis, the service's data dir and its log go; a fresh temporary dir by default. */
  workDir?: string;
  /** Keep the work dir even when everything held. */
  keep?: boolean;
  log?: (line: string) => void;
}

const DEPOSIT = 100;

/** The kill schedule: every kind once in a seeded order, then seeded picks. */
export function killSchedule(rng: SeededRandom, rounds: number): KillKind[] {
  const kinds = [...KILL_KINDS];
  for (let i = kinds.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [kinds[i], kinds[j]] = [kinds[j]!, kinds[i]!];
  }
  return Array.from({ length: rounds }, (_, i) => (i < kinds.length ? kinds[i]! : rng.pick(KILL_KINDS)));
}

export function serviceEnv(
  hardening: HardeningConfig,
  ports: { api: number; rpc: number },
  redisUrl: string,
  dataDir: string,
  prefix: string,
): Record<string, string> {
  return {
    PORT: String(ports.api),
    HOST: '127.0.0.1',
    LOCALNET_PORT: String(ports.rpc),
    DATA_DIR: dataDir,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    API_WORKERS: '2',
    LOG_LEVEL: 'info',
    // Short chains roll over under the long profile's load: a fault may strike mid-rollover.
    RNG_CHAIN_LENGTH: '4000',
    RNG_ROLLOVER_MARGIN: '1000',
    INDEXER_POLL_MS: '200',
    ANCHOR_MAX_DELAY_MS: '1000',
    MANIFEST_MAX_DELAY_MS: '1000',
    RATE_LIMIT_MAX: '10000000',
    // The hardening limits (see findings.ts), which the service reads and the checks take as thresholds.
    ...Object.fromEntries(Object.entries(hardening).map(([k, v]) => [k, String(v)])),
  };
}

export async function runChaos(options: RunOptions): Promise<ChaosReport> {
  const t0 = Date.now();
  const { profile, seed } = options;
  const log = options.log ?? (() => undefined);
  const rng = new SeededRandom(seed);
  const workDir = options.workDir ?? mkdtempSync(path.join(os.tmpdir(), 'pfws-chaos-'));
  const redis = new RedisServer({ dir: path.join(workDir, 'redis'), appendfsync: profile.appendfsync ?? 'always' });
  const rounds: RoundReport[] = [];
  const report: ChaosReport = { seed, profile: profile.name, rounds, durationMs: 0, workDir };
  log(
    `chaos: profile ${profile.name}, seed ${seed} (replay with --seed ${seed}), ${profile.players} players, ${profile.faultRounds} kill rounds, work dir ${workDir}`,
  );
  await redis.start();
  const proxy = new ReplyLossProxy(() => redis.port);
  await proxy.start();
  // The API-only host is a role alone, which needs a ClickHouse server (chDB belongs to the main process); started now
  // so that host starts as soon as it is asked to. Nothing here reads its analytics.
  const clickhouse = startClickHouse();
  clickhouse.catch(() => undefined);
  const prefix = `chaos-${seed.replace(/[^A-Za-z0-9]/g, '').slice(0, 24)}`;
  const env = serviceEnv(profile.hardening, { api: await freePort(), rpc: await freePort() }, redis.url, path.join(workDir, 'data'), prefix);
  const service = new ServiceProcess({ env, logFile: path.join(workDir, 'service.log'), apiWorkers: 2 });
  const redisClient = new Redis(redis.url, { maxRetriesPerRequest: null });
  // Redis rounds take it down on purpose; its commands wait for it to come back.
  redisClient.on('error', () => undefined);
  const { pool, apiPath } = playerPool(service.api, profile.players + 8);
  const journal = new BetJournal();
  const ctx: LoadContext = { round: 0, stats: emptyStats() };
  const allPlayers: ChaosPlayer[] = [];
  const makePlayer = (): ChaosPlayer => {
    const index = allPlayers.length;
    const p = new ChaosPlayer(index, pool, apiPath, service.rpcUrl, journal, rng.fork(`player-${index}`), ctx);
    allPlayers.push(p);
    return p;
  };
  const newPlayer = async (deposit: number, booksKnown = true): Promise<ChaosPlayer> => {
    const p = makePlayer();
    p.booksKnown = booksKnown;
    await p.onboard(deposit);
    return p;
  };
  let fuzzing = false;
  const cleanups: (() => Promise<void>)[] = [async () => (await clickhouse.catch(() => null))?.cleanup()];
  const startApiOnly = async (main: ServiceProcess, mainEnv: Record<string, string>, dir: string): Promise<ServiceProcess> => {
    const config = (await (await fetch(`${main.api}/protocol/v1/config`)).json()) as { usdcMint: string; lpMint: string };
    const proc = new ServiceProcess({
      env: {
        ...mainEnv,
        CLICKHOUSE_URL: `${(await clickhouse).url}/chaos`,
        PORT: String(await freePort()),
        DATA_DIR: path.join(dir, 'api-only'),
        REDIS_URL: proxy.url,
        SOLANA_RPC_URL: main.rpcUrl,
        CLUSTER: 'localnet',
        USDC_MINT: config.usdcMint,
        LP_MINT: config.lpMint,
        KEYS_DIR: path.join(mainEnv.DATA_DIR!, 'keys'),
        API_WORKERS: '0',
      },
      logFile: path.join(dir, 'api-only.log'),
      apiWorkers: 0,
      args: ['--role', 'api'],
    });
    cleanups.push(async () => {
      await proc.stop().catch(() => undefined);
      proc.close();
    });
    await proc.start();
    return proc;
  };
  try {
    const startMs = await service.start();
    const players: ChaosPlayer[] = [];
    for (let i = 0; i < profile.players; i += 8) {
      const batch = Array.from({ length: Math.min(8, profile.players - i) }, () => {
        const p = makePlayer();
        players.push(p);
        return p;
      });
      await Promise.all(batch.map((p) => p.onboard(DEPOSIT)));
    }
    const apiOnly = startApiOnly(service, env, workDir);
    apiOnly.catch(() => undefined);
    const probe = await newPlayer(DEPOSIT);
    const h: Harness = {
      profile,
      rng,
      redis,
      redisClient,
      keys: new Keys(prefix),
      service,
      apiOnly,
      proxy,
      journal,
      ctx,
      load: new Load(players),
      allPlayers,
      probe,
      // The fuzz player's random bodies may open tickets it never hears of; its books are left to conservation.
      newPlayer: (deposit) => newPlayer(deposit, !fuzzing),
      makePlayer,
      log,
    };

    const steady = beginRound(h, 0, 'steady', `steady load of ${profile.players} players (service started in ${startMs} ms)`);
    const steadyStart = Date.now();
    h.load.start();
    await sleep(profile.faultAfterMs[1]);
    rounds.push({ ...(await endRound(h, steady)), durationMs: Date.now() - steadyStart });
    // A host still starting refuses its start while Redis or the main process's localnet is down (as it should), and on
    // a slow machine that start outlasts the steady round: the faults wait for it.
    await apiOnly.catch(() => undefined);

    const plan: { kind: string; run: (round: number) => Promise<RoundReport> }[] = [
      ...killSchedule(rng.fork('kills'), profile.faultRounds).map((kind) => ({ kind: `kill:${kind}`, run: (r: number) => killRound(h, r, kind) })),
      ...profile.redisRounds.map((mode) => ({ kind: `redis:${mode}`, run: (r: number) => redisRound(h, r, mode) })),
      ...(profile.restoreRound ? [{ kind: 'restore', run: (r: number) => restoreRound(h, r) }] : []),
      { kind: 'reply-loss', run: (r: number) => replyLossRound(h, r) },
      { kind: 'fuzz', run: (r: number) => fuzzRound(h, r) },
      { kind: 'slow-clients', run: (r: number) => slowClientsRound(h, r) },
      { kind: 'abuse', run: (r: number) => abuseRound(h, r) },
      {
        kind: 'final',
        run: (r: number) =>
          finalRound(h, r, rounds, {
            loadPlayers: profile.players,
            anchorWaitMs: profile.anchorWaitMs,
            extraChecks: async () => {
              const second = await h.apiOnly;
              return [
                {
                  name: 'the second API host (--role api) rode out every fault without exiting',
                  held: second.unexpectedExits.length === 0 && second.running,
                  detail: `${second.unexpectedExits.length} exits${second.unexpectedExits.map((e) => ` (code ${e.code}, signal ${e.signal})`).join('')}`,
                },
              ];
            },
          }),
      },
    ];
    for (const [i, step] of plan.entries()) {
      fuzzing = step.kind === 'fuzz';
      const round = i + 1;
      const started = Date.now();
      try {
        rounds.push(await step.run(round));
      } catch (err) {
        h.log(`round ${round} (${step.kind}) stopped: ${(err as Error).stack ?? err}`);
        await h.load.stop().catch(() => undefined);
        rounds.push({
          round,
          kind: step.kind,
          tried: step.kind,
          figures: { ...emptyFigures(), acked: ctx.stats.acked, settled: ctx.stats.settled, status5xx: ctx.stats.status5xx, requests: ctx.stats.requests },
          checks: [{ name: 'round ran to its end', held: false, detail: String((err as Error).message ?? err) }],
          notes: service.errorLines(5),
        });
        redis.resume();
        if (!redis.running) await redis.start().catch(() => undefined);
        if (!service.running) await service.start().catch(() => undefined);
      }
      const last = rounds[rounds.length - 1]!;
      last.durationMs = Date.now() - started;
      h.log(`  → ${last.checks.filter((c) => c.held).length}/${last.checks.length} checks held, ${last.figures.acked} acked`);
    }
    const code = await service.stop();
    rounds[rounds.length - 1]!.checks.push({ name: 'SIGTERM stops the service cleanly', held: code === 0, detail: `exit code ${code}` });
  } finally {
    for (const cleanup of cleanups) await cleanup();
    await service.stop().catch(() => undefined);
    service.close();
    await pool.close().catch(() => undefined);
    redisClient.disconnect();
    await proxy.close();
    await redis.stop().catch(() => undefined);
    report.durationMs = Date.now() - t0;
    // Kept for a post-mortem unless every round ran and everything held.
    const complete = rounds.some((r) => r.kind === 'final');
    if (complete && passed(report) && !options.keep && !options.workDir) rmSync(workDir, { recursive: true, force: true });
  }
  return report;
}
