/**
 * Gauges of the whole service, read from Redis and the chain when scraped (so every API process reports the same
 * values and a cluster counts them once): open exposure, anchor lag, queue depths, indexer lag in slots, the
 * roles' heartbeat ages, the settled plays Redis still holds, the analytics shipper's lag once it reports (`heartbeats.beat('shipper', ..., { shippedSeq })`), and
 * the x402 fee payer's SOL with its alert threshold.
 * @module
 */
import { Gauge, Registry } from 'prom-client';
import type { SolanaRpc } from '../chain/rpc.ts';
import { microToNumber } from '../protocol/money.ts';
import type { AnchorStore } from '../store/anchor-store.ts';
import type { ManifestStore } from '../store/anchor-manifests.ts';
import type { HeartbeatRole, HeartbeatStore } from '../store/heartbeats.ts';
import type { LedgerStore } from '../store/ledger.ts';
import type { QueueDepths } from '../store/queue-depths.ts';
import type { RetentionStore } from '../store/retention.ts';
import type { FeePayerWatch } from '../payments/fee-payer.ts';

export interface ServiceMetricSources {
  ledger: Pick<LedgerStore, 'house'>;
  anchors: Pick<AnchorStore, 'progress' | 'entryCreatedAt'>;
  retention: Pick<RetentionStore, 'prunedSize'>;
  manifests: Pick<ManifestStore, 'journalSeq'>;
  heartbeats: Pick<HeartbeatStore, 'read'>;
  queues: Pick<QueueDepths, 'counts'>;
  rpc: SolanaRpc;
  /** The commitment the indexer syncs at, so its lag compares like with like. */
  commitment: 'confirmed' | 'finalized';
  clock: () => Date;
  /** The embedded x402 facilitator's fee payer; null where fees are paid elsewhere (X402_FACILITATOR_URL) or no key is held. */
  feePayer?: Pick<FeePayerWatch, 'read' | 'deps'> | null;
}

/** A registry whose gauges read their sources on each scrape; a value that cannot be known (a source failed, a role never reported) is NaN. */
export function createServiceMetrics(s: ServiceMetricSources): Registry {
  const registry = new Registry();
  const gauge = <L extends string>(name: string, help: string, labelNames: L[], collect: (g: Gauge<L>) => Promise<void>) =>
    new Gauge<L>({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        this.reset();
        if (labelNames.length === 0) this.set(Number.NaN);
        await collect(this).catch(() => {
          this.reset();
          if (labelNames.length === 0) this.set(Number.NaN);
        });
      },
    });

  gauge(
    'pfws_open_exposure_usdc',
    'Open exposure: sum of (max payout - what is already owed) over committed bets and Sweeper turns in flight, in USDC',
    [],
    async (g) => {
      g.set(microToNumber((await s.ledger.house()).exposure));
    },
  );
  gauge('pfws_anchor_pending_entries', 'Settled bet-log entries not yet committed on-chain', [], async (g) => {
    const p = await s.anchors.progress();
    g.set(p.logSize - p.committedSize);
  });
  gauge('pfws_anchor_oldest_pending_age_seconds', 'Age of the oldest settled entry not yet committed on-chain (0 when none waits)', [], async (g) => {
    const p = await s.anchors.progress();
    const at = p.logSize > p.committedSize ? Date.parse((await s.anchors.entryCreatedAt(p.committedSize)) ?? '') : Number.NaN;
    g.set(Number.isFinite(at) ? Math.max(0, (s.clock().getTime() - at) / 1000) : 0);
  });
  gauge(
    'pfws_redis_settled_entries',
    'Settled bet-log entries whose plays Redis still holds (they leave it once archived, in the tiles and SETTLED_RETENTION_MS old)',
    [],
    async (g) => {
      const [p, pruned] = await Promise.all([s.anchors.progress(), s.retention.prunedSize()]);
      g.set(p.logSize - pruned);
    },
  );
  gauge('pfws_queue_jobs', 'BullMQ jobs per queue and state', ['queue', 'state'], async (g) => {
    for (const [queue, states] of Object.entries(await s.queues.counts())) {
      for (const [state, count] of Object.entries(states)) g.set({ queue, state }, count);
    }
  });
  gauge('pfws_indexer_lag_slots', 'Chain slots between the tip and the slot the indexer has fully applied', [], async (g) => {
    const beat = await s.heartbeats.read('indexer');
    if (!beat?.fields.syncedSlot) return;
    const tip = await s.rpc.getSlot({ commitment: s.commitment }).send();
    g.set(Math.max(0, Number(tip - BigInt(beat.fields.syncedSlot))));
  });
  gauge('pfws_role_heartbeat_age_seconds', 'Time since each role last reported a pass', ['role'], async (g) => {
    for (const role of ['indexer', 'worker', 'shipper'] as HeartbeatRole[]) {
      const beat = await s.heartbeats.read(role);
      if (beat) g.set({ role }, Math.max(0, (s.clock().getTime() - beat.at) / 1000));
    }
  });
  gauge('pfws_shipper_lag_events', 'Journal events not yet shipped to ClickHouse (reported once the analytics shipper runs)', [], async (g) => {
    const beat = await s.heartbeats.read('shipper');
    if (beat?.fields.shippedSeq === undefined) return;
    g.set(Math.max(0, (await s.manifests.journalSeq()) - Number(beat.fields.shippedSeq)));
  });
  if (s.feePayer) {
    const feePayer = s.feePayer;
    gauge('pfws_fee_payer_lamports', 'SOL (lamports) of the x402 fee payer, which pays the fees of settled x402 top-ups', [], async (g) => {
      g.set(Number((await feePayer.read()).lamports));
    });
    gauge(
      'pfws_fee_payer_min_lamports',
      'FEE_PAYER_MIN_LAMPORTS: alert when pfws_fee_payer_lamports is below it (/ready then reports x402FeePayer degraded)',
      [],
      async (g) => {
        g.set(Number(feePayer.deps.minLamports));
      },
    );
  }
  return registry;
}
