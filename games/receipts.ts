// Receipts and bet-log entries. The entry is what the bet log commits to: leaf = sha256(0x00 ‖ JCS(entry)).
import { canonicalize } from '../protocol/jcs.ts';
import { leafHash } from '../protocol/merkle.ts';
import { toHex, utf8 } from '../protocol/encoding.ts';
import type { Services } from '../services.ts';

export const RECEIPT_VERSION = 1;

export type ReceiptStatus = 'won' | 'lost' | 'forfeited';

export interface ReceiptAnchor {
  status: 'pending_commit' | 'committed';
  commitId: string;
  commitSignature: string | null;
  commitTransactionUrl: string | null;
  commitAccount: string | null;
  commitExplorerUrl: string | null;
  betLogEntryHash: string;
  betLogRoot: string | null;
  betLogIndex: number | null;
  betLogProof: string[];
  entryCount: number | null;
  stateRoot: string | null;
}

export const pendingAnchor = (betLogEntryHash: string): ReceiptAnchor => ({
  status: 'pending_commit',
  commitId: 'pending',
  commitSignature: null,
  commitTransactionUrl: null,
  commitAccount: null,
  commitExplorerUrl: null,
  betLogEntryHash,
  betLogRoot: null,
  betLogIndex: null,
  betLogProof: [],
  entryCount: null,
  stateRoot: null,
});

export const betLogLeafHex = (entry: unknown): string => toHex(leafHash(utf8(canonicalize(entry))));

export const diceReceiptId = (betPayloadHash: string): string => `dice_${betPayloadHash.slice(0, 32)}`;
export const sweeperReceiptId = (ticketId: string): string => `sweeper_${ticketId}`;

/** The stored receipt body with its latest anchor merged in. */
export async function readReceipt(services: Services, receiptId: string): Promise<Record<string, unknown> | null> {
  const stored = await services.bets.receipt(receiptId);
  if (!stored) return null;
  const body = JSON.parse(stored.body) as Record<string, unknown>;
  if (stored.anchor) body.anchor = JSON.parse(stored.anchor) as ReceiptAnchor;
  return body;
}
