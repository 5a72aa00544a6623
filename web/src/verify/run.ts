// The verify page's procedure, without the DOM: read the service's keys, the receipt and the chain, then run the
// verifier library's checks and report each step and check as it finishes.
import { RngAnchors } from '../../../protocol/verify/rng.ts';
import { verifyReceipt, type ReceiptReport } from '../../../protocol/verify/receipt.ts';
import { isRecord } from '../../../protocol/verify/turn.ts';
import type { Check } from '../../../protocol/verify/report.ts';
import type { PublishedConfig } from '../types.ts';
import { ChainReader, type RpcCall } from './chain.ts';

export type StepId = 'config' | 'receipt' | 'rpc' | 'commit-tx' | 'rng-heads' | 'checks';

export interface Link {
  href: string;
  text: string;
}

/** One step of the run as the page shows it. */
export interface Step {
  pass(detail?: string, link?: Link): void;
  fail(reason: string): void;
  skip(reason: string): void;
}

export interface Sink {
  step(id: StepId, label: string): Step;
  /** One check of the verifier core, in report order; awaited so the page can paint it before the next. */
  check(check: Check): Promise<void>;
}

/** Keys pinned on first use (design §11): a later run that sees others fails loudly. */
export interface Pins {
  get(): PinnedKeys | null;
  set(keys: PinnedKeys): void;
}

export interface PinnedKeys {
  operatorPublicKey: string;
  ackPublicKey: string;
  cluster: string;
  pinnedAt: string;
}

export interface Deps {
  /** GET under /api, JSON; throws with a readable message on failure. */
  api<T>(path: string): Promise<T>;
  /** A JSON-RPC client for `url`. */
  rpc(url: string): RpcCall;
  pins: Pins;
  sink: Sink;
  explorer?(config: PublishedConfig): { transaction(signature: string): string };
  now(): Date;
}

export interface Outcome {
  ok: boolean;
  /** Why the run stopped before the checks, when it did. */
  stopped?: string;
  report?: ReceiptReport;
}

export type ParsedInput = { kind: 'id'; id: string } | { kind: 'json'; receipt: unknown } | { kind: 'error'; reason: string };

const ID = /^[A-Za-z0-9_:.-]{1,200}$/;

/** A receipt id, a receipt's JSON, or the API's `{ receipt }` body. */
export function parseInput(text: string): ParsedInput {
  const trimmed = text.trim();
  if (!trimmed) return { kind: 'error', reason: "Enter a receipt id or paste a receipt's JSON." };
  if (trimmed.startsWith('{')) {
    let body: unknown;
    try {
      body = JSON.parse(trimmed);
    } catch (err) {
      return { kind: 'error', reason: `The pasted text is not valid JSON: ${(err as Error).message}` };
    }
    return { kind: 'json', receipt: isRecord(body) && isRecord(body.receipt) ? body.receipt : body };
  }
  if (!ID.test(trimmed)) return { kind: 'error', reason: 'A receipt id looks like dice_… or sweeper_…; anything else should be pasted as JSON.' };
  return { kind: 'id', id: trimmed };
}

/** The RNG chain heads a receipt's acks name (untrusted: they only say which on-chain heads to look for). */
function namedHeads(receipt: unknown): Set<string> {
  const heads = new Set<string>();
  if (!isRecord(receipt) || !isRecord(receipt.verifierPayload)) return heads;
  const vp = receipt.verifierPayload;
  const acks = [vp.ack, ...(Array.isArray(vp.turns) ? vp.turns.map((t) => (isRecord(t) ? t.ack : null)) : [])];
  for (const ack of acks) if (isRecord(ack) && typeof ack.rngChainHead === 'string' && /^[0-9a-f]{64}$/.test(ack.rngChainHead)) heads.add(ack.rngChainHead);
  return heads;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

/** Runs every step; never throws (a failure is a failed step). */
export async function runVerification(text: string, rpcOverride: string | undefined, deps: Deps): Promise<Outcome> {
  const { sink } = deps;
  const stop = (step: Step, reason: string): Outcome => {
    step.fail(reason);
    return { ok: false, stopped: reason };
  };

  const parsed = parseInput(text);
  const configStep = sink.step('config', 'Read the keys the service publishes');
  if (parsed.kind === 'error') return stop(configStep, parsed.reason);
  let config: PublishedConfig;
  try {
    config = await deps.api<PublishedConfig>('/protocol/v1/config');
  } catch (err) {
    return stop(configStep, `Could not read /api/protocol/v1/config: ${message(err)}`);
  }
  const pinned = deps.pins.get();
  if (pinned && (pinned.operatorPublicKey !== config.operatorPublicKey || pinned.ackPublicKey !== config.ackPublicKey || pinned.cluster !== config.cluster)) {
    return stop(
      configStep,
      `The service now publishes other keys than the ones pinned on ${pinned.pinnedAt} (anchor ${pinned.operatorPublicKey}, ack ${pinned.ackPublicKey}, ${pinned.cluster}). ` +
        'Either the operator rotated its keys or this is not the service you checked before. Forget the pinned keys only if you know why they changed.',
    );
  }
  if (!pinned)
    deps.pins.set({
      operatorPublicKey: config.operatorPublicKey,
      ackPublicKey: config.ackPublicKey,
      cluster: config.cluster,
      pinnedAt: deps.now().toISOString(),
    });
  configStep.pass(
    `${pinned ? `Same keys as pinned on ${pinned.pinnedAt}` : 'Keys pinned in this browser on first use'}: anchor key ${config.operatorPublicKey}, ack key ${config.ackPublicKey}, cluster ${config.cluster}.`,
  );

  const receiptStep = sink.step('receipt', 'Read the receipt');
  let receipt: unknown;
  if (parsed.kind === 'json') {
    receipt = parsed.receipt;
    receiptStep.pass(`Pasted receipt ${isRecord(receipt) && typeof receipt.id === 'string' ? receipt.id : '(no id)'}.`);
  } else {
    try {
      receipt = (await deps.api<{ receipt: unknown }>(`/receipts/${encodeURIComponent(parsed.id)}`)).receipt;
    } catch (err) {
      return stop(receiptStep, `Could not read receipt ${parsed.id}: ${message(err)}`);
    }
    receiptStep.pass(`Receipt ${parsed.id} from /api/receipts.`);
  }

  const rpcUrl = rpcOverride?.trim() || config.rpcUrl;
  const rpcStep = sink.step('rpc', 'Reach the chain');
  const rpc = deps.rpc(rpcUrl);
  try {
    const slot = await rpc<number>('getSlot', [{ commitment: 'confirmed' }]);
    rpcStep.pass(
      rpcUrl === config.rpcUrl
        ? `${rpcUrl} at slot ${slot}. This is the RPC the service names; for a check that trusts nothing of the service, enter an RPC of your own.`
        : `${rpcUrl} at slot ${slot}.`,
    );
  } catch (err) {
    return stop(rpcStep, `Could not reach the chain at ${rpcUrl}: ${message(err)}`);
  }
  const chain = new ChainReader(rpc, config.operatorPublicKey);

  const txStep = sink.step('commit-tx', 'Fetch the commit transaction from the chain');
  const anchor = isRecord(receipt) && isRecord(receipt.anchor) ? receipt.anchor : null;
  const signature = anchor && typeof anchor.commitSignature === 'string' ? anchor.commitSignature : null;
  if (!signature) txStep.skip('The receipt names no commit transaction (it is not anchored yet).');
  else {
    try {
      const tx = await chain.transaction(signature);
      if (tx)
        txStep.pass(
          `Found at slot ${tx.slot}.`,
          deps.explorer ? { href: deps.explorer(config).transaction(signature), text: 'View the transaction on the explorer' } : undefined,
        );
      else txStep.fail(`Transaction ${signature} is not on the chain.`);
    } catch (err) {
      return stop(txStep, `Could not read transaction ${signature}: ${message(err)}`);
    }
  }

  const headStep = sink.step('rng-heads', 'Find the RNG chain head the anchor key committed on-chain');
  const rng = new RngAnchors();
  const wanted = namedHeads(receipt);
  if (!wanted.size) headStep.skip('The receipt names no RNG chain head.');
  else {
    try {
      const found = await chain.findRngHeads(wanted);
      for (const head of found.keys()) rng.addHead(head);
      const lost = [...wanted].filter((h) => !found.has(h));
      if (lost.length) headStep.fail(`No rng-head memo of the anchor key commits ${lost.map((h) => `${h.slice(0, 12)}…`).join(', ')}.`);
      else {
        const [head, sig] = [...found.entries()][0]!;
        headStep.pass(
          `Head ${head.slice(0, 16)}… committed in transaction ${sig.slice(0, 16)}…${found.size > 1 ? ` and ${found.size - 1} more` : ''}.`,
          deps.explorer ? { href: deps.explorer(config).transaction(sig), text: 'View the head commit on the explorer' } : undefined,
        );
      }
    } catch (err) {
      return stop(headStep, `Could not read the anchor key's history: ${message(err)}`);
    }
  }

  const checksStep = sink.step('checks', "Run the verifier library's checks");
  const report = verifyReceipt(receipt, {
    ackPublicKey: config.ackPublicKey,
    operatorPublicKey: config.operatorPublicKey,
    rng,
    commitTx: (s) => chain.cached(s),
  });
  for (const check of report.checks) await sink.check(check);
  const failed = report.checks.filter((c) => c.status === 'fail');
  if (failed.length) checksStep.fail(`${failed.length} of ${report.checks.length} checks failed: ${failed.map((c) => c.name).join(', ')}.`);
  else checksStep.pass(`All ${report.checks.length} checks passed${report.checks.some((c) => c.status === 'skip') ? ' (some did not apply)' : ''}.`);
  return { ok: report.ok, report };
}
