// The `receipt` command and the receipt pass of `all`: fetch, gather on-chain facts, run the core checks.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { verifyReceipt, RngIndexRegistry, type ReceiptReport } from '../protocol/verify/receipt.ts';
import { isRecord } from '../protocol/verify/turn.ts';
import { Checks, type Report } from '../protocol/verify/report.ts';
import type { VerifierContext } from './context.ts';

/** Reads a receipt from a file (the receipt, or the API's `{ receipt }` body) or from the API by id. */
export async function loadReceipt(ctx: VerifierContext, target: string): Promise<unknown> {
  if (existsSync(target) && statSync(target).isFile()) {
    const body = JSON.parse(readFileSync(target, 'utf8')) as unknown;
    return isRecord(body) && isRecord(body.receipt) ? body.receipt : body;
  }
  return (await ctx.api.get<{ receipt: unknown }>(`/receipts/${encodeURIComponent(target)}`)).receipt;
}

/** The chain heads a receipt's acks name (untrusted: only used to know when a history scan can stop). */
function namedHeads(receipt: unknown): Set<string> {
  const heads = new Set<string>();
  if (!isRecord(receipt) || !isRecord(receipt.verifierPayload)) return heads;
  const vp = receipt.verifierPayload;
  const acks = [vp.ack, ...(Array.isArray(vp.turns) ? vp.turns.map((t) => (isRecord(t) ? t.ack : null)) : [])];
  for (const ack of acks) if (isRecord(ack) && typeof ack.rngChainHead === 'string') heads.add(ack.rngChainHead);
  return heads;
}

/** Fetches the commit transaction and any chain heads not yet known, then verifies. */
export async function checkReceipt(ctx: VerifierContext, receipt: unknown): Promise<ReceiptReport> {
  const anchor = isRecord(receipt) && isRecord(receipt.anchor) ? receipt.anchor : null;
  if (anchor && typeof anchor.commitSignature === 'string') await ctx.chain.transaction(anchor.commitSignature);
  const missing = [...namedHeads(receipt)].filter((h) => !ctx.rng.hasHead(h));
  if (missing.length) {
    const wanted = new Set(missing);
    await ctx.chain.scan({
      stop: (m) => {
        if (m.memo.kind === 'rng-head') {
          ctx.rng.addHead(m.memo.headHex);
          wanted.delete(m.memo.headHex);
        }
        return wanted.size === 0;
      },
    });
  }
  return verifyReceipt(receipt, {
    ackPublicKey: ctx.config.ackPublicKey,
    operatorPublicKey: ctx.config.operatorPublicKey,
    rng: ctx.rng,
    commitTx: (signature) => ctx.chain.cached(signature),
  });
}

export async function receiptCommand(ctx: VerifierContext, target: string): Promise<Report[]> {
  return [await checkReceipt(ctx, await loadReceipt(ctx, target))];
}

interface Entry {
  index: number;
  leafHash: string;
  receiptId: string;
}
interface EntriesPage {
  entries: Entry[];
  size: number;
  committedSize: number;
}

const PARALLEL = 8;

/** First entry index whose receipt was created at or after `sinceMs` (receipts are nearly in time order). */
async function firstIndexSince(ctx: VerifierContext, sinceMs: number, size: number): Promise<number> {
  let lo = 0;
  let hi = size;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const page = await ctx.api.get<EntriesPage>(`/protocol/v1/bet-log/entries?from=${mid}&limit=1`);
    const entry = page.entries[0];
    const receipt = entry ? await ctx.api.find<{ receipt: { createdAt?: string } }>(`/receipts/${encodeURIComponent(entry.receiptId)}`) : null;
    const at = Date.parse(receipt?.receipt.createdAt ?? '');
    if (Number.isFinite(at) && at < sinceMs) lo = mid + 1;
    else hi = mid;
  }
  // Settlements racing each other can land slightly out of time order: start a little earlier and filter.
  return Math.max(0, lo - 64);
}

/**
 * Verifies every anchored receipt created since `sinceMs`, in log order, checking each against its
 * log entry and each RNG index for single use.
 * @returns one report per receipt, then one for the pass itself
 */
export async function receiptsSince(ctx: VerifierContext, sinceMs: number): Promise<Report[]> {
  const head = await ctx.api.get<EntriesPage>('/protocol/v1/bet-log/entries?from=0&limit=1');
  const end = head.committedSize;
  const start = sinceMs > 0 ? await firstIndexSince(ctx, sinceMs, end) : 0;
  const reports: Report[] = [];
  const registry = new RngIndexRegistry();
  const pass = new Checks();
  const clashes: string[] = [];
  const mismatched: string[] = [];
  let verified = 0;
  ctx.progress.start('receipts', end - start);
  for (let from = start; from < end; from += 100) {
    const page = await ctx.api.get<EntriesPage>(`/protocol/v1/bet-log/entries?from=${from}&limit=${Math.min(100, end - from)}`);
    for (let i = 0; i < page.entries.length; i += PARALLEL) {
      const batch = page.entries.slice(i, i + PARALLEL);
      const bodies = await Promise.all(batch.map((e) => ctx.api.find<{ receipt: unknown }>(`/receipts/${encodeURIComponent(e.receiptId)}`)));
      for (let k = 0; k < batch.length; k++) {
        const entry = batch[k] as Entry;
        const receipt = bodies[k]?.receipt;
        if (!receipt) {
          mismatched.push(`entry ${entry.index} names receipt ${entry.receiptId}, which the API does not serve`);
          continue;
        }
        const createdAt = isRecord(receipt) ? Date.parse(String(receipt.createdAt)) : NaN;
        if (sinceMs > 0 && Number.isFinite(createdAt) && createdAt < sinceMs) continue;
        const report = await checkReceipt(ctx, receipt);
        const anchor = isRecord(receipt) && isRecord(receipt.anchor) ? receipt.anchor : {};
        if (anchor.betLogEntryHash !== entry.leafHash || anchor.betLogIndex !== entry.index) {
          report.checks.push({ name: 'log-entry', status: 'fail', reason: `the log's entry ${entry.index} is not this receipt's entry` });
          report.ok = false;
          mismatched.push(`entry ${entry.index} (${entry.receiptId})`);
        }
        for (const clash of registry.claim(entry.receiptId, report.rngUses)) {
          report.checks.push({ name: 'rng-index-unique', status: 'fail', reason: clash });
          report.ok = false;
          clashes.push(clash);
        }
        reports.push(report);
        verified++;
      }
      ctx.progress.update(Math.min(end, from + i + batch.length) - start);
    }
  }
  ctx.progress.finish();
  pass.add('receipts-found', mismatched.length === 0, mismatched.slice(0, 5).join('; '));
  pass.add('rng-index-unique', clashes.length === 0, clashes.slice(0, 5).join('; '));
  if (head.size > end) pass.skip('unanchored', `${head.size - end} settled entries are not anchored yet`);
  reports.push({ ...pass.report(`receipts since ${new Date(sinceMs).toISOString()} (${verified} verified)`) });
  return reports;
}
