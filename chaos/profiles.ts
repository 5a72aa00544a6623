// The two profiles: `short` for CI (under 3 minutes on 2 cores), `long` for `npm run chaos`.
import type { Profile } from './harness.ts';

export const SHORT: Profile = {
  name: 'short',
  players: 4,
  faultRounds: 4,
  faultAfterMs: [1_000, 2_000],
  afterRecoveryMs: 500,
  redisRounds: ['sigkill', 'sigstop'],
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
