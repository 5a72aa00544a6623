/**
 * Public receipts: the stored body with its latest anchor merged in (the anchor is filled after the commit lands).
 * Redis holds a receipt until its play leaves it (store/retention.ts); the archive serves it from then on.
 * @module
 */
import type { ReceiptAnchor } from '../protocol/receipt.ts';
import type { BetStore } from '../store/bets.ts';
import type { ReceiptArchive, RetentionStore } from '../store/retention.ts';

/** `<game>_<id>` (`dice_<32 hex>`, `sweeper_t_<24 hex>`): anything else is no receipt, and is never asked of the archive. */
const RECEIPT_ID_RE = /^[a-z]{1,16}_[0-9a-z_]{1,64}$/;

export interface ReceiptsDeps {
  bets: Pick<BetStore, 'receipt'>;
  retention: Pick<RetentionStore, 'prunedSize'>;
  /** Where receipts no longer in Redis are read; null where this process reaches no archive. */
  archive: ReceiptArchive | null;
}

export class Receipts {
  constructor(private readonly deps: ReceiptsDeps) {}

  /**
   * The public receipt, or null when there is none with this id.
   * @param client - who asks (its address): a read from the archive spends that client's share of its budget
   * @throws {PfwsError} SERVICE_UNAVAILABLE when Redis has dropped some receipts and the archive cannot answer
   */
  async read(receiptId: string, client?: string): Promise<Record<string, unknown> | null> {
    const stored = (await this.deps.bets.receipt(receiptId)) ?? (await this.#archived(receiptId, client));
    return stored && receiptOf(stored);
  }

  async #archived(receiptId: string, client: string | undefined): Promise<{ body: string; anchor: string | null } | null> {
    // While Redis has dropped nothing, it holds every receipt: an unknown id costs no archive query.
    if (!this.deps.archive || !RECEIPT_ID_RE.test(receiptId) || (await this.deps.retention.prunedSize()) === 0) return null;
    const [row] = await this.deps.archive.archivedReceipts({ receiptIds: [receiptId], ...(client === undefined ? {} : { client }) });
    return row ?? null;
  }
}

function receiptOf(stored: { body: string; anchor: string | null }): Record<string, unknown> {
  const body = JSON.parse(stored.body) as Record<string, unknown>;
  if (stored.anchor) body.anchor = JSON.parse(stored.anchor) as ReceiptAnchor;
  return body;
}
