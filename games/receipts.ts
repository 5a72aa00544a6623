// Public receipts: the stored body with its latest anchor merged in (the anchor is filled after the commit lands).
import type { ReceiptAnchor } from '../protocol/receipt.ts';
import type { BetStore } from '../store/bets.ts';

export async function readReceipt(bets: Pick<BetStore, 'receipt'>, receiptId: string): Promise<Record<string, unknown> | null> {
  const stored = await bets.receipt(receiptId);
  if (!stored) return null;
  const body = JSON.parse(stored.body) as Record<string, unknown>;
  if (stored.anchor) body.anchor = JSON.parse(stored.anchor) as ReceiptAnchor;
  return body;
}
