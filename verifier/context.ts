// Everything a verification run shares: the API and the user's RPC, the pinned trust root, the anchor
// keys' memos, RNG anchors, progress, and the checks of the run's own footing (trust root, cluster).
import { RngAnchors } from '../protocol/verify/rng.ts';
import type { WitnessKey } from '../protocol/witness.ts';
import { Checks } from '../protocol/verify/report.ts';
import type { SignedMemo } from '../protocol/verify/chain.ts';
import { keyAt, keysOf } from '../protocol/trust-root.ts';
import { ApiClient, FetchError, RpcClient } from './http.ts';
import { ChainData } from './chain-data.ts';
import type { Progress } from './progress.ts';
import { checkCluster, loadTrust, pinFileOf, type LoadedTrust } from './trust.ts';

export interface RunOptions {
  apiUrl: string;
  /** The user's RPC; the API's `rpcUrl` is only a default, with a warning. */
  rpcUrl?: string;
  trustRootFile?: string;
  stateDir: string;
  progress: Progress;
  /** Worker threads for bulk checks: a count (0: inline), or `auto` (every core, once the work pays for them). */
  workers: number | 'auto';
  /** One-line notices to the user (stderr). */
  notice(text: string): void;
  /** Witnesses whose cosignatures the checkpoint must carry, at least `quorum` of them (none: not checked). */
  witnesses?: WitnessQuorum;
}

export interface WitnessQuorum {
  keys: WitnessKey[];
  quorum: number;
}

export interface VerifierContext {
  api: ApiClient;
  chain: ChainData;
  trust: LoadedTrust;
  rng: RngAnchors;
  progress: Progress;
  workers: number | 'auto';
  stateDir: string;
  notice(text: string): void;
  /** The run's footing: `trust-root`, `rpc-cluster`. */
  setup: Checks;
  /** The ack key that signed at a time. */
  ackKey(committedAt: string): string;
  anchorKeys: string[];
  witnesses: WitnessQuorum;
}

/** Opens a run: pins or checks the trust root, picks the RPC, and checks that it serves the pinned cluster. */
export async function openContext(options: RunOptions): Promise<VerifierContext> {
  const api = new ApiClient(options.apiUrl);
  const setup = new Checks();
  const trust = await loadTrust(
    api,
    { ...(options.trustRootFile ? { file: options.trustRootFile } : {}), pinFile: pinFileOf(options.stateDir, options.apiUrl), notice: options.notice },
    setup,
  );
  let rpcUrl = options.rpcUrl;
  if (!rpcUrl) {
    const config = await api.get<{ rpcUrl?: unknown }>('/protocol/v1/config', 64 * 1024);
    if (typeof config.rpcUrl !== 'string') throw new FetchError('the service names no rpcUrl; pass --rpc');
    rpcUrl = config.rpcUrl;
    options.notice(`pfws-verify: warning: reading the chain through ${rpcUrl}, the RPC the audited service names; pass --rpc <url> to use one you trust.`);
  }
  const chain = new ChainData(new RpcClient(rpcUrl));
  await checkCluster(chain, trust.root, setup);
  return {
    api,
    chain,
    trust,
    rng: new RngAnchors(),
    progress: options.progress,
    workers: options.workers,
    stateDir: options.stateDir,
    notice: options.notice,
    setup,
    ackKey: (at) => keyAt(trust.root, 'ack', at),
    anchorKeys: keysOf(trust.root, 'anchor'),
    witnesses: options.witnesses ?? { keys: [], quorum: 0 },
  };
}

/** Every memo the pinned anchor keys alone signed, oldest first; registers the RNG chain heads. */
export async function anchorMemos(ctx: VerifierContext): Promise<{ memos: SignedMemo[]; newest: Record<string, string | null> }> {
  const memos: SignedMemo[] = [];
  const newest: Record<string, string | null> = {};
  for (const key of ctx.anchorKeys) {
    // The scan learns its total once it has listed the key's signatures.
    let total = -1;
    const scan = await ctx.chain.scan(key, {
      onProgress: (done, t) => {
        if (t !== total) {
          total = t;
          ctx.progress.start('anchor key history', t);
        }
        ctx.progress.update(done);
      },
    });
    if (total >= 0) ctx.progress.finish();
    memos.push(...scan.memos);
    newest[key] = scan.newest;
  }
  memos.sort((a, b) => a.slot - b.slot);
  for (const m of memos) if (m.memo.kind === 'rng-head') ctx.rng.addHead(m.memo.headHex);
  return { memos, newest };
}
