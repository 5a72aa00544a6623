// How big each attack is: `full` replays issue 21's figures for `npm run attacks`, `ci` is the short profile that
// test/chaos/attacks.test.ts runs on one shared service within about a minute.

export interface AttackProfile {
  name: string;
  /** USDC the attacker LP-deposits around its open 99x Dice bets (finding 1; the run used 1,000,000). */
  lpAttackDeposit: number;
  /** USDC the attacker LP-deposits around idle hard tickets (finding 1; the run used 100,000). */
  lpIdleDeposit: number;
  /** USDC an honest LP holds and takes out while the attack runs. */
  honestLpDeposit: number;
  /** Wallets that commit unrevealed 99x bets around the LP deposit, and the USDC each plays with. */
  gamblers: number;
  gamblerUsdc: number;
  /** Wallets that each hold one idle hard ticket at the largest stake allowed (the run used 23). */
  idleTicketWallets: number;
  /** Wallets that hold all the exposure they may (finding 2: ten of 2,000 USDC each), and their USDC. */
  holders: number;
  holderUsdc: number;
  /** Dust withdrawals sent below the minimum (finding 3). */
  dustRequests: number;
  /** Withdrawals asked for with the wallet's USDC account closed (finding 3). */
  rentCycles: number;
  /**
   * Withdrawals asked for with the account open and closed right after (finding 3). One the keeper had already sent
   * comes back only once its blockhash expires, about a minute on localnet.
   */
  rentRaces: number;
  /** Withdrawals one wallet queues ahead of another wallet's (finding 3; the run used 300). */
  backlog: number;
  /** LP deposits redeemed at once, to collect rounding (finding 5). */
  lpRoundTrips: number;
  /** The service's TICKET_IDLE_MS: short, so that tickets close idle within the run. */
  ticketIdleMs: number;
  /** The service's API_WORKERS: API processes, each with its own token cache (finding 5's revocation). */
  apiWorkers: number;
}

export const FULL: AttackProfile = {
  name: 'full',
  lpAttackDeposit: 1_000_000,
  lpIdleDeposit: 100_000,
  honestLpDeposit: 1_000,
  gamblers: 2,
  gamblerUsdc: 2_000,
  idleTicketWallets: 23,
  holders: 10,
  holderUsdc: 2_000,
  dustRequests: 50,
  rentCycles: 5,
  rentRaces: 2,
  backlog: 300,
  lpRoundTrips: 10,
  ticketIdleMs: 8_000,
  apiWorkers: 2,
};

export const CI: AttackProfile = {
  name: 'ci',
  lpAttackDeposit: 100_000,
  lpIdleDeposit: 10_000,
  honestLpDeposit: 1_000,
  gamblers: 2,
  gamblerUsdc: 2_000,
  idleTicketWallets: 2,
  holders: 3,
  holderUsdc: 2_000,
  dustRequests: 5,
  rentCycles: 2,
  rentRaces: 0,
  backlog: 64,
  lpRoundTrips: 2,
  ticketIdleMs: 5_000,
  // The API in the main process: each API process costs its start-up again (about 20 s of CPU here); the revocation
  // across processes has its own e2e test.
  apiWorkers: 0,
};

export const PROFILES: Record<string, AttackProfile> = { full: FULL, ci: CI };
