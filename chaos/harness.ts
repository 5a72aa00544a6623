// What every round works with: the suite's Redis and service processes, the players and their journal.
import type { Redis } from 'ioredis';
import type { Keys } from '../store/keys.ts';
import type { BetJournal } from './bet-journal.ts';
import type { HardeningConfig } from './findings.ts';
import type { ChaosPlayer, Load, LoadContext } from './load.ts';
import type { SeededRandom } from './random.ts';
import type { RedisServer } from './redis-server.ts';
import type { RedisHa } from './redis-ha.ts';
import type { ReplyLossProxy } from './redis-proxy.ts';
import type { ServiceProcess } from './service-process.ts';

export type RedisFault = 'sigterm' | 'sigkill' | 'sigstop';

export interface Profile {
  name: string;
  /** N: concurrent load players. */
  players: number;
  /** M: kill -9 rounds. */
  faultRounds: number;
  /** A fault strikes at a random moment this long after the load starts, in ms. */
  faultAfterMs: [number, number];
  /** Load goes on this long after the service is back, before the round's recovery pass. */
  afterRecoveryMs: number;
  /** Redis rounds: stopped with SIGTERM (AOF written out), killed with SIGKILL, or hung with SIGSTOP. */
  redisRounds: RedisFault[];
  /**
   * Whether to run the restore round (an older snapshot, the refused start, `npm run ledger -- recover`). CI's short
   * profile leaves it to the ledger e2e tests, which try the same steps, to keep the run within its budget.
   */
  restoreRound: boolean;
  /** The suite's Redis fsync policy; `everysec` can lose the last second of writes to a kill -9. @defaultValue 'always' */
  appendfsync?: 'always' | 'everysec';
  /** How long Redis stays down in a Redis round. */
  redisOutageMs: number;
  /** Generated requests per OpenAPI operation in the fuzz round. */
  fuzzRunsPerOperation: number;
  /** Connections beyond the cap in the many-connections check. */
  extraConnections: number;
  hardening: HardeningConfig;
  /** Longest wait for every settled play to be anchored before the verifier runs. */
  anchorWaitMs: number;
}

export interface Harness {
  profile: Profile;
  rng: SeededRandom;
  redis: RedisServer;
  /** A client of the suite's Redis, for the two ledger totals no API shows and for the token check. */
  redisClient: Redis;
  /** The service's Redis key names (store/keys.ts), for the house totals and the token check. */
  keys: Keys;
  service: ServiceProcess;
  /**
   * A second API host (`--role api`) on the same Redis and the main process's localnet, as a scaled-out
   * deployment runs it: it stays up while the main process, and with it the chain RPC, is down.
   */
  apiOnly: Promise<ServiceProcess>;
  /** The second API host reaches Redis through this proxy, which can lose one reply on purpose. */
  proxy: ReplyLossProxy;
  journal: BetJournal;
  ctx: LoadContext;
  load: Load;
  /** Every player that ever held a balance: the load, the probe, the fuzz and abuse players. */
  allPlayers: ChaosPlayer[];
  probe: ChaosPlayer;
  newPlayer(deposit: number): Promise<ChaosPlayer>;
  /** A player counted in the books but not yet funded. */
  makePlayer(): ChaosPlayer;
  log(line: string): void;
}

/** What the shared round steps (rounds/common.ts) use; the failover suite (failover.ts) has no proxy or second API host. */
export type RoundHarness = Pick<Harness, 'ctx' | 'log' | 'load' | 'allPlayers' | 'service' | 'redisClient' | 'keys' | 'probe' | 'journal'>;

/** The failover suite (failover.ts): Redis as production runs it, a primary and a replica under three Sentinels. */
export interface FailoverProfile {
  name: string;
  players: number;
  /** The steady round plays this long before the first fault. */
  steadyMs: number;
  /** A fault strikes at a random moment this long after the load starts, in ms. */
  faultAfterMs: [number, number];
  /** Load goes on this long after play resumes, before the round's recovery pass. */
  afterRecoveryMs: number;
  /** How long the replica stays hung in the replica round (longer than `maxLagS`, so both refusals show). */
  replicaOutageMs: number;
  /** Sentinel's down-after-milliseconds. */
  downAfterMs: number;
  /** min-replicas-max-lag on the nodes, in seconds. */
  maxLagS: number;
  /** REDIS_WAIT_TIMEOUT_MS of the service. */
  waitTimeoutMs: number;
  hardening: HardeningConfig;
  anchorWaitMs: number;
}

export interface FailoverHarness extends RoundHarness {
  profile: FailoverProfile;
  rng: SeededRandom;
  ha: RedisHa;
  /** A funded player outside the load that sends the probe requests and never plays. */
  prober: ChaosPlayer;
}
