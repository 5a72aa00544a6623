// The `receipt` command: one receipt, from a file or the API, checked in full: its bets and the rebuilt
// receipt, its inclusion under an on-chain root, its RNG reveals, and its session keys on-chain.
import { readFileSync, statSync } from 'node:fs';
import { completeReceipt, inspectReceipt, type ReceiptReport } from '../protocol/verify/receipt.ts';
import { isRecord } from '../protocol/verify/turn.ts';
import { MAX_RECEIPT_BYTES } from '../protocol/verify/bounds.ts';
import type { Report } from '../protocol/verify/report.ts';
import type { VerifierContext } from './context.ts';
import { SessionKeyResolver } from './session-keys.ts';
import { UsageError } from './trust.ts';

/** Reads a receipt from a file (the receipt, or the API's `{ receipt }` body) or from the API by id. */
export async function loadReceipt(ctx: VerifierContext, target: string): Promise<unknown> {
  let isFile = false;
  try {
    isFile = statSync(target).isFile();
  } catch {
    isFile = false;
  }
  if (isFile) {
    if (statSync(target).size > MAX_RECEIPT_BYTES) throw new UsageError(`${target} is larger than a receipt can be (${MAX_RECEIPT_BYTES} bytes)`);
    let body: unknown;
    try {
      body = JSON.parse(readFileSync(target, 'utf8'));
    } catch (err) {
      throw new UsageError(`${target} is not JSON: ${(err as Error).message}`);
    }
    return isRecord(body) && isRecord(body.receipt) ? body.receipt : body;
  }
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(target)) throw new UsageError(`${JSON.stringify(target)} is neither a file nor a receipt id`);
  return (await ctx.api.get<{ receipt: unknown }>(`/receipts/${encodeURIComponent(target)}`, MAX_RECEIPT_BYTES)).receipt;
}

/**
 * Registers what the receipt's RNG links need: the chain heads they name, and the values commit memos
 * revealed on those chains (closer anchors than the heads), read back from the anchor keys' history.
 */
async function anchorRng(ctx: VerifierContext, heads: Set<string>): Promise<void> {
  const wanted = new Set([...heads].filter((h) => !ctx.rng.hasHead(h)));
  if (!wanted.size) return;
  const reveals: { index: number; value: string }[] = [];
  for (const key of ctx.anchorKeys) {
    const { memos } = await ctx.chain.scan(key, {
      stop: (m) => {
        if (m.memo.kind === 'rng-head') wanted.delete(m.memo.headHex);
        return wanted.size === 0;
      },
    });
    for (const m of memos) {
      if (m.memo.kind === 'rng-head') ctx.rng.addHead(m.memo.headHex);
      if (m.memo.kind === 'commit') reveals.push({ index: m.memo.rngIndex, value: m.memo.rngRevealHex });
    }
  }
  // Lowest first, so each value is walked from the one below it rather than from the head.
  for (const r of reveals.sort((a, b) => a.index - b.index)) ctx.rng.linkAny(r.index, r.value);
}

/** Checks one receipt: the ack before any hash walk, the chain only for what the checks bound. */
export async function checkReceipt(ctx: VerifierContext, receipt: unknown): Promise<ReceiptReport> {
  const inspection = inspectReceipt(receipt, { ackPublicKey: ctx.ackKey });
  await anchorRng(ctx, new Set(inspection.rngLinks.map((l) => l.head)));
  const signature = inspection.anchor?.commitSignature;
  if (typeof signature === 'string') await ctx.chain.transaction(signature).catch(() => undefined);
  const resolver = new SessionKeyResolver(ctx);
  await resolver.resolve(inspection.sessionKeys.map((k) => ({ sessionPubkey: k.sessionPubkey, betPayloadHash: k.betPayloadHash })));
  return completeReceipt(inspection, {
    operatorPublicKey: ctx.anchorKeys,
    rng: ctx.rng,
    commitTx: (s) => ctx.chain.cached(s),
    sessionKey: resolver.lookup,
  });
}

export async function receiptCommand(ctx: VerifierContext, target: string): Promise<Report[]> {
  return [await checkReceipt(ctx, await loadReceipt(ctx, target))];
}
