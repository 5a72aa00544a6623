/**
 * What `GET /ready` checks: a small registry of named checks, each bounded in time, each reporting `ok`, `failing`
 * (with a reason), `degraded` (a dependency whose loss stops only a side feature: reported, but the service stays
 * ready, since pulling every API instance out of rotation would stop play too) or `not_configured`. The composition root adds the checks; a new dependency plugs in with one
 * `readiness.add(name, check)` line.
 * @module
 */
import type { SolanaRpc } from '../chain/rpc.ts';
import type { HeartbeatRole, HeartbeatStore } from '../store/heartbeats.ts';
import type { AnalyticsReader } from '../analytics/reader.ts';
import type { FeePayerWatch } from '../payments/fee-payer.ts';
import type { AnchorStore } from '../store/anchor-store.ts';

export interface CheckResult {
  status: 'ok' | 'failing' | 'degraded' | 'not_configured';
  /** Why it fails, or what is missing. */
  reason?: string;
  /** Round trip of the check. */
  latencyMs?: number;
  /** For a role: how long ago it last beat. */
  ageMs?: number;
  /** For the chain RPC: the slot it reports. */
  slot?: number;
}

export type Check = () => Promise<CheckResult>;

export interface Readiness {
  ready: boolean;
  checks: Record<string, CheckResult>;
}

/** A check that names a dependency this deployment does not have yet; it does not make the service unready. */
export const notConfigured =
  (reason: string): Check =>
  async () => ({ status: 'not_configured', reason });

export class ReadinessChecks {
  readonly #checks = new Map<string, Check>();

  /**
   * @param timeoutMs - a check that takes longer fails as timed out
   * @defaultValue 2000
   */
  constructor(readonly timeoutMs = 2_000) {}

  /** Adds a check, or replaces the one of that name. */
  add(name: string, check: Check): this {
    this.#checks.set(name, check);
    return this;
  }

  names(): string[] {
    return [...this.#checks.keys()];
  }

  /** Runs every check at once; ready when none fails. */
  async run(): Promise<Readiness> {
    const entries = await Promise.all([...this.#checks].map(async ([name, check]) => [name, await this.#bounded(check)] as const));
    const checks = Object.fromEntries(entries);
    return { ready: entries.every(([, r]) => r.status !== 'failing'), checks };
  }

  async #bounded(check: Check): Promise<CheckResult> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<CheckResult>((resolve) => {
      timer = setTimeout(() => resolve({ status: 'failing', reason: `no answer within ${this.timeoutMs} ms` }), this.timeoutMs);
    });
    try {
      return await Promise.race([check().catch((err: unknown) => ({ status: 'failing' as const, reason: reasonOf(err) })), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

const reasonOf = (err: unknown): string => {
  const e = err as { code?: string; message?: string };
  return [e.code, e.message].filter(Boolean).join(': ') || String(err);
};

const since = (started: number) => Math.round((performance.now() - started) * 10) / 10;

/** Redis answers a PING. */
export const redisCheck =
  (heartbeats: Pick<HeartbeatStore, 'ping'>): Check =>
  async () => ({ status: 'ok', latencyMs: Math.round((await heartbeats.ping()) * 10) / 10 });

/** The chain RPC answers getSlot. */
export const rpcCheck =
  (rpc: SolanaRpc): Check =>
  async () => {
    const started = performance.now();
    const slot = await rpc.getSlot({ commitment: 'confirmed' }).send();
    return { status: 'ok', latencyMs: since(started), slot: Number(slot) };
  };

/**
 * A role is alive while it beats: its last beat is younger than a few of its own intervals (and never less
 * than `graceMs`, so one slow pass is not an outage).
 */
export const heartbeatCheck =
  (heartbeats: Pick<HeartbeatStore, 'read'>, role: HeartbeatRole, clock: () => Date, graceMs = 15_000): Check =>
  async () => {
    const beat = await heartbeats.read(role);
    if (!beat)
      return { status: 'failing', reason: `no ${role} has reported yet: is a process with --role ${role} running against this Redis and REDIS_PREFIX?` };
    const ageMs = Math.max(0, clock().getTime() - beat.at);
    const limit = Math.max(graceMs, 5 * beat.everyMs);
    if (ageMs > limit) return { status: 'failing', ageMs, reason: `the ${role} last reported ${Math.round(ageMs / 1000)} s ago (limit ${limit / 1000} s)` };
    if (beat.fields.lastPassOk === '0') return { status: 'ok', ageMs, reason: `the ${role} is alive, but its last pass failed (see its log)` };
    return { status: 'ok', ageMs };
  };

/**
 * ClickHouse (or, for an API process beside a chDB owner, the owner) answers a trivial query. An engine that cannot
 * answer is reported with its reason but does not make the process unready: play goes on without it (design §8),
 * and only the analytics routes answer SERVICE_UNAVAILABLE meanwhile.
 */
export const clickhouseCheck =
  (analytics: Pick<AnalyticsReader, 'ping'>): Check =>
  async () => {
    const started = performance.now();
    try {
      await analytics.ping();
    } catch (err) {
      const cause = (err as { cause?: unknown }).cause;
      return {
        status: 'degraded',
        latencyMs: since(started),
        reason: `ClickHouse cannot answer (${reasonOf(cause ?? err)}): analytics answer SERVICE_UNAVAILABLE until it is back; play goes on`,
      };
    }
    return { status: 'ok', latencyMs: since(started) };
  };

/**
 * The x402 fee payer holds at least FEE_PAYER_MIN_LAMPORTS. Below it, or unreadable, the check is `degraded`: only
 * x402 top-ups depend on it, so the service stays ready while the operator is told to top it up.
 */
export const feePayerCheck =
  (feePayer: Pick<FeePayerWatch, 'read'>): Check =>
  async () => {
    const started = performance.now();
    try {
      const b = await feePayer.read();
      if (!b.low) return { status: 'ok', latencyMs: since(started) };
      return {
        status: 'degraded',
        latencyMs: since(started),
        reason: `the x402 fee payer ${b.address} holds ${b.lamports} lamports, below FEE_PAYER_MIN_LAMPORTS (${b.minLamports}): top it up; x402 top-ups stop once it cannot pay a fee`,
      };
    } catch (err) {
      return { status: 'degraded', latencyMs: since(started), reason: `the x402 fee payer's balance cannot be read (${reasonOf(err)})` };
    }
  };

/**
 * The bet log holds the newest on-chain commit (design §13): failing while the anchor refuses to sign on a log that
 * went back behind the chain (a ledger restored from an older backup), with the sizes, roots and the way out.
 */
export const anchorCheck =
  (anchors: Pick<AnchorStore, 'forkRefusal'>): Check =>
  async () => {
    const refusal = await anchors.forkRefusal();
    return refusal ? { status: 'failing', reason: refusal } : { status: 'ok' };
  };

/**
 * The journal's sequence never goes backwards for analytics (design §13): failing while the shipper stopped because
 * ClickHouse already holds sequence numbers the ledger is handing out again.
 */
export const journalCheck =
  (heartbeats: Pick<HeartbeatStore, 'read'>): Check =>
  async () => {
    const stopped = (await heartbeats.read('shipper'))?.fields.stopped;
    return stopped ? { status: 'failing', reason: stopped } : { status: 'ok' };
  };

/**
 * The keeper may pay (funding/payout-gate.ts): failing while the ledger is behind the journal archive (payouts are
 * halted until `npm run ledger -- recover`), degraded while that cannot be known (ClickHouse unreadable: payouts
 * wait, play goes on).
 */
export const payoutsCheck =
  (heartbeats: Pick<HeartbeatStore, 'read'>): Check =>
  async () => {
    const fields = (await heartbeats.read('keeper'))?.fields;
    if (fields?.payouts === 'behind') return { status: 'failing', reason: fields.reason ?? 'the ledger is behind the journal archive' };
    if (fields?.payouts === 'unknown') return { status: 'degraded', reason: fields.reason ?? 'the journal archive cannot be read' };
    return { status: 'ok' };
  };
