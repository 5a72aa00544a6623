// The two profiles: `short` for CI (under 3 minutes on 2 cores), `long` for `npm run chaos`.
import type { FailoverProfile, Profile } from './harness.ts';

export const SHORT: Profile = {
  name: 'short',
  players: 4,
  faultRounds: 4,
  faultAfterMs: [1_000, 2_000],
  afterRecoveryMs: 500,
  redisRounds: ['sigkill', 'sigstop'],
  restoreRound: false,
  redisOutageMs: 4_500,
  fuzzRunsPerOperation: 6,
  extraConnections: 32,
  hardening: {
    HEADERS_TIMEOUT_MS: 1_500,
    REQUEST_BODY_TIMEOUT_MS: 1_500,
    REQUEST_TIMEOUT_MS: 3_000,
    KEEP_ALIVE_TIMEOUT_MS: 1_500,
    MAX_CONNECTIONS: 64,
    REDIS_COMMAND_TIMEOUT_MS: 1_500,
    CHAIN_RPC_TIMEOUT_MS: 1_500,
    MAX_PREPARED_BETS_PER_WALLET: 16,
    MAX_UNREVEALED_BETS_PER_WALLET: 4,
    TOKEN_CACHE_TTL_MS: 1_000,
  },
  anchorWaitMs: 30_000,
};

export const LONG: Profile = {
  name: 'long',
  players: 16,
  faultRounds: 8,
  faultAfterMs: [2_000, 10_000],
  afterRecoveryMs: 2_000,
  redisRounds: ['sigterm', 'sigkill', 'sigstop'],
  restoreRound: true,
  redisOutageMs: 8_000,
  fuzzRunsPerOperation: 60,
  extraConnections: 100,
  hardening: {
    HEADERS_TIMEOUT_MS: 10_000,
    REQUEST_BODY_TIMEOUT_MS: 10_000,
    REQUEST_TIMEOUT_MS: 30_000,
    KEEP_ALIVE_TIMEOUT_MS: 5_000,
    MAX_CONNECTIONS: 512,
    REDIS_COMMAND_TIMEOUT_MS: 2_000,
    CHAIN_RPC_TIMEOUT_MS: 5_000,
    MAX_PREPARED_BETS_PER_WALLET: 64,
    MAX_UNREVEALED_BETS_PER_WALLET: 8,
    TOKEN_CACHE_TTL_MS: 1_000,
  },
  anchorWaitMs: 120_000,
};

export const PROFILES: Record<string, Profile> = { short: SHORT, long: LONG };

/** Redis with a replica and Sentinel (failover.ts): short for CI, long for `npm run chaos`. */
export const FAILOVER_SHORT: FailoverProfile = {
  name: 'failover-short',
  players: 4,
  steadyMs: 2_000,
  faultAfterMs: [1_000, 2_000],
  afterRecoveryMs: 500,
  replicaOutageMs: 4_000,
  downAfterMs: 1_000,
  maxLagS: 2,
  waitTimeoutMs: 500,
  // The chain RPC is not what this suite strikes: its calls get the service's default wait, not the main suite's
  // short one, so onboarding on a busy machine does not fail on it.
  hardening: { ...SHORT.hardening, CHAIN_RPC_TIMEOUT_MS: 5_000 },
  anchorWaitMs: 30_000,
};

export const FAILOVER_LONG: FailoverProfile = {
  ...FAILOVER_SHORT,
  name: 'failover-long',
  players: 16,
  steadyMs: 5_000,
  faultAfterMs: [2_000, 8_000],
  afterRecoveryMs: 2_000,
  replicaOutageMs: 8_000,
  hardening: { ...LONG.hardening, CHAIN_RPC_TIMEOUT_MS: 5_000 },
  anchorWaitMs: 120_000,
};

export const FAILOVER_PROFILES: Record<string, FailoverProfile> = { short: FAILOVER_SHORT, long: FAILOVER_LONG };
