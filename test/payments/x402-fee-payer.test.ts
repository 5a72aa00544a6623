// The x402 fee payer's SOL (issue 21): read from the chain for a Prometheus gauge with its alert threshold and for a
// readiness check that turns `degraded` (never `failing`) below FEE_PAYER_MIN_LAMPORTS, with a logged warning.
import { generateKeyPairSigner, lamports } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmSignature } from '../../chain/send.ts';
import { FeePayerWatch } from '../../payments/fee-payer.ts';
import { feePayerCheck } from '../../api/readiness.ts';
import { createServiceMetrics, type ServiceMetricSources } from '../../api/service-metrics.ts';
import { solOf, startMoneyNet, type MoneyNet } from './money-net.ts';

let m: MoneyNet;

beforeAll(async () => {
  m = await startMoneyNet();
});
afterAll(async () => {
  await m?.dispose();
});

/** A logger that keeps what it was told. */
function recorder() {
  const lines: { level: 'warn' | 'info'; msg: string; fields: Record<string, unknown> }[] = [];
  return {
    lines,
    warn: (fields: Record<string, unknown>, msg: string) => lines.push({ level: 'warn', msg, fields }),
    info: (fields: Record<string, unknown>, msg: string) => lines.push({ level: 'info', msg, fields }),
  };
}

/** A fee payer holding exactly `amount` lamports. */
async function feePayerWith(amount: bigint) {
  const signer = await generateKeyPairSigner();
  await confirmSignature(m.rpc, await m.rpc.requestAirdrop(signer.address, lamports(amount)).send());
  return signer.address;
}

describe('the fee payer watch', () => {
  it('reads the balance, and warns when it is below the threshold: when it goes low, then at most every warnEveryMs, and says when it is back', async () => {
    const address = await feePayerWith(5_000_000n);
    const log = recorder();
    const clock = { ms: 0 };
    const watch = (minLamports: bigint) =>
      new FeePayerWatch({ rpc: m.rpc, address, minLamports, logger: log as never, warnEveryMs: 60_000, now: () => clock.ms });
    const ok = await watch(5_000_000n).read();
    expect(ok).toEqual({ address, lamports: 5_000_000n, minLamports: 5_000_000n, low: false });
    expect(log.lines).toEqual([]);

    const low = watch(5_000_001n);
    expect((await low.read()).low).toBe(true);
    await low.read();
    clock.ms += 59_999;
    await low.read();
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({ level: 'warn', fields: { feePayer: address, lamports: '5000000', minLamports: '5000001' } });
    expect(log.lines[0]!.msg).toMatch(/FEE_PAYER_MIN_LAMPORTS/);
    clock.ms += 1;
    await low.read();
    expect(log.lines.filter((l) => l.level === 'warn')).toHaveLength(2);

    // Topped up: one line says so, and no more warnings.
    await confirmSignature(m.rpc, await m.rpc.requestAirdrop(address, lamports(1n)).send());
    expect((await low.read()).low).toBe(false);
    await low.read();
    expect(log.lines.map((l) => l.level)).toEqual(['warn', 'warn', 'info']);
  });

  it('makes /ready report x402FeePayer ok above the threshold, degraded below it or when unreadable, never failing', async () => {
    const address = await feePayerWith(2_000_000n);
    const log = recorder();
    const watch = (minLamports: bigint) => new FeePayerWatch({ rpc: m.rpc, address, minLamports, logger: log as never });
    expect(await feePayerCheck(watch(1_000_000n))()).toMatchObject({ status: 'ok' });
    const low = await feePayerCheck(watch(3_000_000n))();
    expect(low).toMatchObject({ status: 'degraded' });
    expect(low.reason).toContain(`${address} holds 2000000 lamports, below FEE_PAYER_MIN_LAMPORTS (3000000)`);
    const unreadable = await feePayerCheck({
      read: async () => {
        throw new Error('rpc down');
      },
    })();
    expect(unreadable).toMatchObject({ status: 'degraded', reason: expect.stringContaining('rpc down') });
  });

  it('is a Prometheus gauge with its alert threshold beside it', async () => {
    const address = await feePayerWith(7_000_000n);
    const feePayer = new FeePayerWatch({ rpc: m.rpc, address, minLamports: 9_000_000n, logger: recorder() as never });
    const unused = {} as never;
    const sources: ServiceMetricSources = {
      ledger: unused,
      anchors: unused,
      retention: unused,
      manifests: unused,
      heartbeats: unused,
      queues: unused,
      rpc: m.rpc,
      commitment: 'confirmed',
      clock: () => new Date(),
      feePayer,
    };
    const text = await createServiceMetrics(sources).metrics();
    expect(text).toMatch(/^pfws_fee_payer_lamports 7000000$/m);
    expect(text).toMatch(/^pfws_fee_payer_min_lamports 9000000$/m);
    expect(text).toMatch(/# HELP pfws_fee_payer_lamports /);
    // Without a fee payer of its own (a remote facilitator) the gauges are absent.
    expect(await createServiceMetrics({ ...sources, feePayer: null }).metrics()).not.toMatch(/pfws_fee_payer/);
    expect(await solOf(m, address)).toBe(7_000_000n);
  });
});
