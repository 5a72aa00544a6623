// The standing economic-attack suite (issue 21): one real service (its own data dir, Redis prefix, free ports and
// localnet), and each finding of the issue replayed against it as an attacker would, through the public HTTP API and
// signed chain transactions only. Every attempt reports what it cost the attacker and what it gained.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { freePort } from '../ports.ts';
import { ServiceProcess } from '../service-process.ts';
import { removeKeys } from '../redis-keys.ts';
import { type Attacker, unavailable } from './attacker.ts';
import type { AttackProfile } from './profiles.ts';
import { emptyResult, passed, type AttackReport, type AttackResult } from './report.ts';
import { Target } from './target.ts';
import { lpAroundIdleTickets, lpAroundOpenBets } from './rounds/lp-price.ts';
import { holdExposure } from './rounds/exposure.ts';
import { backlogAheadOfOthers, dustWithdrawals, rentFromTheKeeper } from './rounds/withdrawals.ts';
import { idempotencyKeyReuse, lpRoundTrips } from './rounds/small.ts';
import { agentKeyOnRest, revokedToken, strangerVoidsChallenge } from './rounds/sign-in.ts';
import { computeBudgetPayments, dustTopUps } from './rounds/x402.ts';

export interface AttackContext {
  target: Target;
  profile: AttackProfile;
  log(line: string): void;
  /** API processes serving the API (each with its own token cache). */
  apiProcesses: number;
  /** The wallets whose hard tickets finding 1 left to close idle: finding 2 reopens them. */
  idleTicketWallets?: Attacker[];
}

/**
 * One attempt: it fills in its result (and any further results it reports with `also`); a throw ends it as an error,
 * and the next attempt runs.
 */
export interface Attempt {
  finding: number;
  attack: string;
  run(ctx: AttackContext, result: AttackResult, also: (finding: number, attack: string) => AttackResult): Promise<void>;
}

export const ATTEMPTS: Attempt[] = [
  { finding: 1, attack: 'LP deposit around unrevealed 99x Dice bets', run: lpAroundOpenBets },
  { finding: 1, attack: 'LP deposit around idle hard Sweeper tickets', run: lpAroundIdleTickets },
  ...holdExposure,
  { finding: 3, attack: 'dust withdrawals below the minimum', run: dustWithdrawals },
  { finding: 3, attack: 'withdrawals to a closed USDC account (keeper rent)', run: rentFromTheKeeper },
  { finding: 3, attack: "one wallet's withdrawal backlog ahead of another's", run: backlogAheadOfOthers },
  { finding: 4, attack: 'x402 top-ups below the minimum', run: dustTopUps },
  { finding: 4, attack: 'x402 payments asking the fee payer for a huge compute budget', run: computeBudgetPayments },
  { finding: 5, attack: 'LP round trips for rounding', run: lpRoundTrips },
  { finding: 5, attack: 'Idempotency-Key reused with another amount', run: idempotencyKeyReuse },
  { finding: 5, attack: "a stranger voiding a wallet's sign-in challenge", run: strangerVoidsChallenge },
  { finding: 5, attack: "the agent's service-held key on REST", run: agentKeyOnRest },
  { finding: 5, attack: 'a revoked bearer token', run: revokedToken },
];

export interface RunOptions {
  profile: AttackProfile;
  /** Only the attempts whose name contains one of these (all by default). */
  only?: string[];
  /** Where the service's data and log go; a fresh temporary dir by default, removed when every attack held. */
  workDir?: string;
  keep?: boolean;
  /** The Redis the service uses, under a prefix of its own. @defaultValue REDIS_URL or redis://127.0.0.1:6379 */
  redisUrl?: string;
  /** More of the service's configuration, over the suite's own: to replay the attacks against another setting. */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

function serviceEnv(profile: AttackProfile, ports: { api: number; rpc: number }, redisUrl: string, dataDir: string, prefix: string): Record<string, string> {
  return {
    PORT: String(ports.api),
    HOST: '127.0.0.1',
    LOCALNET_PORT: String(ports.rpc),
    DATA_DIR: dataDir,
    REDIS_URL: redisUrl,
    REDIS_PREFIX: prefix,
    API_WORKERS: String(profile.apiWorkers),
    // service-process.ts reads readiness from the JSON log lines at info.
    LOG_LEVEL: 'info',
    LOG_FORMAT: 'json',
    RNG_CHAIN_LENGTH: '5000',
    INDEXER_POLL_MS: '200',
    // The attacks are economic: the rate limit is another defence, tested elsewhere.
    RATE_LIMIT_MAX: '10000000',
    DEV_HOUSE_CAPITAL: '1000000',
    TICKET_IDLE_MS: String(profile.ticketIdleMs),
  };
}

async function dropPrefix(redisUrl: string, prefix: string): Promise<void> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  try {
    await removeKeys(redis, prefix);
  } finally {
    redis.disconnect();
  }
}

export async function runAttacks(options: RunOptions): Promise<AttackReport> {
  const t0 = Date.now();
  const log = options.log ?? (() => undefined);
  const workDir = options.workDir ?? mkdtempSync(path.join(os.tmpdir(), 'pfws-attacks-'));
  const redisUrl = options.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `attacks-${randomBytes(6).toString('hex')}`;
  const env = {
    ...serviceEnv(options.profile, { api: await freePort(), rpc: await freePort() }, redisUrl, path.join(workDir, 'data'), prefix),
    ...options.env,
  };
  // API_WORKERS 0 serves the API from the main process itself: no API process to wait for.
  const apiWorkers = Number(env.API_WORKERS);
  const service = new ServiceProcess({ env, logFile: path.join(workDir, 'service.log'), apiWorkers });
  const report: AttackReport = { profile: options.profile.name, results: [], durationMs: 0, serviceStartMs: 0, workDir };
  log(
    `attacks: profile ${options.profile.name}, Redis ${redisUrl} prefix ${prefix}, work dir ${workDir}${options.env ? `, service env ${JSON.stringify(options.env)}` : ''}`,
  );
  try {
    // Generous: on a loaded 2-core machine the API processes have taken minutes to start.
    report.serviceStartMs = await service.start(480_000);
    const ctx: AttackContext = {
      target: await Target.connect(service.api, service.rpcUrl),
      profile: options.profile,
      apiProcesses: Math.max(1, apiWorkers),
      log,
    };
    const attempts = options.only?.length ? ATTEMPTS.filter((a) => options.only!.some((o) => a.attack.includes(o))) : ATTEMPTS;
    for (const attempt of attempts) {
      const result = emptyResult(attempt.finding, attempt.attack);
      const more: AttackResult[] = [];
      const also = (finding: number, attack: string) => {
        const extra = emptyResult(finding, attack);
        more.push(extra);
        return extra;
      };
      const started = Date.now();
      const unavailableBefore = unavailable.length;
      log(`finding ${attempt.finding}: ${attempt.attack}`);
      try {
        await attempt.run(ctx, result, also);
      } catch (err) {
        result.error = (err as Error).stack ?? String(err);
      }
      result.durationMs = Date.now() - started;
      const retried = unavailable.slice(unavailableBefore);
      if (retried.length) {
        const paths = [...new Set(retried)].map((p) => `${retried.filter((x) => x === p).length}× ${p}`);
        result.notes.push(
          `the service answered 503 (Redis too slow on a loaded machine) to ${retried.length} requests, sent again as it asks: ${paths.join(', ')}`,
        );
      }
      for (const extra of more) extra.durationMs = result.durationMs;
      report.results.push(result, ...more);
    }
    const unexpected = service.unexpectedExits;
    if (unexpected.length) {
      const exits = emptyResult(0, 'the service stays up through every attack');
      exits.error = `the main process exited on its own: ${unexpected.map((e) => `code ${e.code} signal ${e.signal}`).join(', ')}`;
      report.results.push(exits);
    }
  } finally {
    await service.stop().catch(() => undefined);
    service.close();
    await dropPrefix(redisUrl, prefix).catch((err) => log(`could not remove the Redis keys under ${prefix}: ${err}`));
    report.durationMs = Date.now() - t0;
    // Kept for a post-mortem (the service's log) unless every attack held.
    if (passed(report) && !options.keep && !options.workDir) rmSync(workDir, { recursive: true, force: true });
  }
  return report;
}
