// The parts a recovery takes, built from the ledger's Redis, the chain, the operator's secrets and the archive.
import { address } from '@solana/kit';
import type { Redis } from 'ioredis';
import type { Ack } from '../protocol/ack.ts';
import type { AgentLimitSettings } from '../protocol/agent-limits.ts';
import type { LimitSettings } from '../protocol/house.ts';
import { ataOf, type ChainSetup } from '../chain/genesis.ts';
import type { SolanaRpc } from '../chain/rpc.ts';
import type { AnalyticsEngine } from '../analytics/engine.ts';
import { RecoveryArchive } from '../analytics/recovery-archive.ts';
import { engineArchive } from '../analytics/reader.ts';
import { itemsSinceCheckpoint, type TailDeps } from '../funding/tail.ts';
import { DiceGame } from '../games/dice.ts';
import { SweeperGame } from '../games/sweeper.ts';
import { TurnReplayer } from '../games/replay.ts';
import { Receipts } from '../games/receipts.ts';
import { AnchorStore } from '../store/anchor-store.ts';
import { ManifestStore } from '../store/anchor-manifests.ts';
import { BetStore } from '../store/bets.ts';
import { HeartbeatStore } from '../store/heartbeats.ts';
import { IndexerStore } from '../store/indexer.ts';
import type { Keys } from '../store/keys.ts';
import { LedgerStore } from '../store/ledger.ts';
import { LedgerRestore } from '../store/ledger-restore.ts';
import { LpStore } from '../store/lp.ts';
import { RetentionStore } from '../store/retention.ts';
import { RngStore } from '../store/rng.ts';
import { defineScripts } from '../store/scripts.ts';
import { TicketStore } from '../store/tickets.ts';
import { WithdrawalStore } from '../store/withdrawals.ts';
import type { RecoverDeps } from './recover.ts';

export interface RecoveryParts {
  redis: Redis;
  keys: Keys;
  rpc: SolanaRpc;
  setup: ChainSetup;
  /** The anchor key's public key. */
  anchorKey: string;
  aliasOf: (wallet: string) => string;
  /** s_index of an operator RNG chain (KEYS_DIR/rng). */
  rngValue: (chainId: number, index: number) => string;
  engine: AnalyticsEngine;
  limits: LimitSettings;
  agentLimits: AgentLimitSettings;
  /** The commitment the indexer credits at. */
  commitment: 'confirmed' | 'finalized';
  clock?: () => Date;
}

export async function recoveryDeps(p: RecoveryParts): Promise<RecoverDeps> {
  const { redis, keys, rpc, setup, aliasOf } = p;
  const scripts = defineScripts(redis);
  const clock = p.clock ?? (() => new Date());
  const ledger = new LedgerStore(redis, keys, scripts);
  const bets = new BetStore(redis, keys, scripts);
  const tickets = new TicketStore(redis, keys, scripts);
  const rng = new RngStore(redis, keys, scripts);
  const receipts = new Receipts({ bets, retention: new RetentionStore(redis, keys, scripts), archive: engineArchive(async () => p.engine) });
  const keeperLpAccount = await ataOf(address(setup.vaultAuthority), address(setup.lpMint));
  const tail: TailDeps = {
    rpc,
    ledger,
    indexer: new IndexerStore(redis, keys, scripts),
    ctx: { usdcMint: setup.usdcMint, vaultTokenAccount: setup.vaultTokenAccount, lpMint: setup.lpMint, keeperLpAccount },
    commitment: p.commitment,
    clock,
    aliasOf,
    onReveal: async () => {},
  };
  // The games settle again with the archived acks: the ack key lives on API hosts, and an ack is deterministic anyway.
  const replayer = (acks: ReadonlyMap<string, Ack>) => {
    const ackOf = (bet: { hash: string }): Ack => {
      const ack = acks.get(bet.hash);
      if (!ack) throw new Error(`no archived ack of bet ${bet.hash}`);
      return ack;
    };
    const dice = new DiceGame({ bets, rng, ackOf, receipts });
    const sweeper = new SweeperGame({ bets, tickets, rng, ackOf, aliasOf, clock, limits: p.limits, agentLimits: p.agentLimits });
    return new TurnReplayer({ bets, games: { dice, sweeper }, rngValue: p.rngValue });
  };
  return {
    anchors: new AnchorStore(redis, keys, scripts),
    ledger,
    vaultBalance: async () => BigInt((await rpc.getTokenAccountBalance(address(setup.vaultTokenAccount)).send()).value.amount),
    bets,
    tickets,
    withdrawals: new WithdrawalStore(redis, keys, scripts),
    lp: new LpStore(redis, keys, scripts),
    manifests: new ManifestStore(redis, keys, scripts),
    rng,
    restore: new LedgerRestore(redis, keys, scripts),
    heartbeats: new HeartbeatStore(redis, keys),
    archive: new RecoveryArchive(p.engine),
    rpc,
    anchorKey: p.anchorKey,
    keeperKey: setup.vaultAuthority,
    commitment: p.commitment,
    replayer,
    aliasOf,
    chainItems: async () => [...(await itemsSinceCheckpoint(tail, setup.vaultTokenAccount)), ...(await itemsSinceCheckpoint(tail, keeperLpAccount))],
    agentWindowMs: p.agentLimits.windowMs,
    clock,
  };
}
