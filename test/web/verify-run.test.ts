// The verify page's procedure (web/src/verify/run.ts) without a browser: the frozen real receipts verify step by
// step against their recorded chain data, and tampering, changed keys or an unreachable chain each fail by name.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runVerification, type Deps, type PinnedKeys, type StepId } from '../../web/src/verify/run.ts';
import type { Check } from '../../protocol/verify/report.ts';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/verify/v1.json', import.meta.url), 'utf8')) as {
  config: { operatorPublicKey: string; ackPublicKey: string };
  receipts: Record<string, any>[];
  transactions: Record<string, { slot: number }>;
};

const config = { ...fixture.config, cluster: 'localnet', rpcUrl: 'http://rpc.test', explorerBaseUrl: 'https://explorer.test' };

interface Recorded {
  steps: { id: StepId; status: string; text: string }[];
  checks: Check[];
}

function harness(options: { receipts?: Record<string, unknown>[]; pinned?: PinnedKeys | null; rpcDown?: boolean; serviceConfig?: typeof config } = {}) {
  const recorded: Recorded = { steps: [], checks: [] };
  let pinned = options.pinned ?? null;
  const receipts = options.receipts ?? fixture.receipts;
  // Newest first, as getSignaturesForAddress lists them.
  const signatures = Object.entries(fixture.transactions)
    .sort(([, a], [, b]) => b.slot - a.slot)
    .map(([signature]) => ({ signature, err: null }));
  const rpcUrls: string[] = [];
  const deps: Deps = {
    async api<T>(path: string): Promise<T> {
      if (path === '/protocol/v1/config') return (options.serviceConfig ?? config) as T;
      const id = decodeURIComponent(path.replace('/receipts/', ''));
      const receipt = receipts.find((r) => r.id === id);
      if (!receipt) throw new Error(`No receipt with id ${id}`);
      return { receipt: structuredClone(receipt) } as T;
    },
    rpc(url) {
      rpcUrls.push(url);
      return async <T>(method: string, params: unknown[]): Promise<T> => {
        if (options.rpcDown) throw new Error(`cannot reach the RPC at ${url}`);
        if (method === 'getSlot') return 42 as T;
        if (method === 'getTransaction') return (fixture.transactions[params[0] as string] ?? null) as T;
        if (method === 'getSignaturesForAddress') return (params[0] === config.operatorPublicKey ? signatures : []) as T;
        throw new Error(`unexpected ${method}`);
      };
    },
    pins: { get: () => pinned, set: (keys) => (pinned = keys) },
    sink: {
      step(id) {
        const entry = { id, status: 'running', text: '' };
        recorded.steps.push(entry);
        const set =
          (status: string) =>
          (text = '') =>
            Object.assign(entry, { status, text });
        return { pass: set('pass'), fail: set('fail'), skip: set('skip') };
      },
      async check(check) {
        recorded.checks.push(check);
      },
    },
    explorer: () => ({ transaction: (s) => `https://explorer.test/tx/${s}` }),
    now: () => new Date('2026-11-23T00:00:00Z'),
  };
  return { deps, recorded, rpcUrls, pinned: () => pinned };
}

const failed = (r: Recorded) => r.checks.filter((c) => c.status === 'fail').map((c) => c.name);

describe('verify page procedure', () => {
  it('verifies every frozen receipt by id, each step and check passing in order', async () => {
    for (const receipt of fixture.receipts) {
      const { deps, recorded } = harness();
      const outcome = await runVerification(receipt.id, undefined, deps);
      expect(failed(recorded), receipt.id).toEqual([]);
      expect(outcome.ok).toBe(true);
      expect(recorded.steps.map((s) => [s.id, s.status])).toEqual([
        ['config', 'pass'],
        ['receipt', 'pass'],
        ['rpc', 'pass'],
        ['commit-tx', 'pass'],
        ['rng-heads', 'pass'],
        ['checks', 'pass'],
      ]);
      expect(recorded.checks.filter((c) => c.status === 'pass').map((c) => c.name)).toEqual(
        expect.arrayContaining(['inclusion', 'on-chain-commit', 'outcome', 'payout']),
      );
    }
  });

  it('takes pasted JSON, bare or as the API body, and the RPC the user names', async () => {
    const receipt = fixture.receipts.find((r) => r.game === 'sweeper')!;
    for (const text of [JSON.stringify(receipt), JSON.stringify({ receipt }, null, 2)]) {
      const { deps, recorded, rpcUrls } = harness();
      const outcome = await runVerification(`  ${text}\n`, 'http://my-own-rpc.test', deps);
      expect(outcome.ok).toBe(true);
      expect(rpcUrls).toEqual(['http://my-own-rpc.test']);
      expect(recorded.steps.find((s) => s.id === 'rpc')!.text).not.toContain('RPC the service names');
      expect(recorded.checks.some((c) => c.name.startsWith('turn[0].'))).toBe(true);
    }
  });

  it('names the failing check of a tampered receipt: a raised payout, a changed seed', async () => {
    const won = fixture.receipts.find((r) => r.game === 'dice' && r.status === 'won')!;
    const payout = structuredClone(won);
    payout.payout += 1;
    const seed = structuredClone(won);
    seed.verifierPayload.clientSeedRaw = seed.verifierPayload.clientSeedRaw.replace(/^./, (c: string) => (c === '0' ? '1' : '0'));
    for (const [tampered, name] of [
      [payout, 'payout'],
      [seed, 'commitment'],
    ] as const) {
      const { deps, recorded } = harness();
      const outcome = await runVerification(JSON.stringify(tampered), undefined, deps);
      expect(outcome.ok).toBe(false);
      expect(failed(recorded)).toContain(name);
      const checksStep = recorded.steps.find((s) => s.id === 'checks')!;
      expect(checksStep).toMatchObject({ status: 'fail' });
      expect(checksStep.text).toContain(name);
    }
  });

  it('pins the published keys on first use and stops when a later run sees others', async () => {
    const first = harness();
    await runVerification(fixture.receipts[0]!.id, undefined, first.deps);
    expect(first.pinned()).toMatchObject({ operatorPublicKey: config.operatorPublicKey, ackPublicKey: config.ackPublicKey, cluster: 'localnet' });

    const rotated = harness({ pinned: first.pinned(), serviceConfig: { ...config, ackPublicKey: fixture.config.operatorPublicKey } });
    const outcome = await runVerification(fixture.receipts[0]!.id, undefined, rotated.deps);
    expect(outcome).toMatchObject({ ok: false });
    expect(outcome.stopped).toContain('other keys than the ones pinned');
    expect(rotated.recorded.steps.map((s) => [s.id, s.status])).toEqual([['config', 'fail']]);
    expect(rotated.recorded.checks).toEqual([]);
  });

  it('stops with a reason on bad input, an unknown id or an unreachable chain', async () => {
    const cases: [string, string | undefined, Parameters<typeof harness>[0], StepId, string][] = [
      ['', undefined, {}, 'config', 'Enter a receipt id'],
      ['{"id": ', undefined, {}, 'config', 'not valid JSON'],
      ['dice_<script>', undefined, {}, 'config', 'should be pasted as JSON'],
      ['dice_0000', undefined, {}, 'receipt', 'No receipt with id dice_0000'],
      [fixture.receipts[0]!.id, undefined, { rpcDown: true }, 'rpc', 'Could not reach the chain at http://rpc.test'],
    ];
    for (const [text, rpc, options, step, reason] of cases) {
      const { deps, recorded } = harness(options);
      const outcome = await runVerification(text, rpc, deps);
      expect(outcome.ok, text).toBe(false);
      const last = recorded.steps.at(-1)!;
      expect(last).toMatchObject({ id: step, status: 'fail' });
      expect(last.text).toContain(reason);
      expect(recorded.checks).toEqual([]);
    }
  });

  it('reports a receipt whose commit is not on the chain it reads', async () => {
    const receipt = structuredClone(fixture.receipts[0]!);
    receipt.anchor.commitSignature = '1111111111111111111111111111111111111111111111111111111111111111';
    const { deps, recorded } = harness();
    const outcome = await runVerification(JSON.stringify(receipt), undefined, deps);
    expect(outcome.ok).toBe(false);
    expect(recorded.steps.find((s) => s.id === 'commit-tx')).toMatchObject({ status: 'fail' });
    expect(failed(recorded)).toContain('on-chain-commit');
  });
});
