// Archived journal entries of on-chain facts (deposits, keys, inflows, LP requests), matched to the chain items the
// indexer applied then: the same item, found again on-chain, is applied again with its archived entry.
import { lpJobIdOf, type ChainItem } from '../store/ledger.ts';
import type { JournalRecord } from '../store/journal-records.ts';

/** Journal types the indexer writes for a chain item. */
export const CHAIN_EVENT_TYPES: readonly string[] = [
  'deposit_credited',
  'session_key_authorized',
  'session_key_revoked',
  'unattributed_received',
  'lp_deposit_received',
  'lp_redeem_received',
  'house_funded',
];

type Json = Record<string, unknown>;

/** Whether `item` is the fact the archived entry journaled (apply_chain_item.lua writes each from its item alone). */
export function itemMatches(item: ChainItem, e: JournalRecord, data: Json): boolean {
  const amount = (item.amount ?? 0n).toString();
  switch (e.type) {
    case 'deposit_credited':
      return data.source === 'x402'
        ? item.kind === 'x402-deposit' && item.signature === data.paymentId && amount === data.amount
        : item.kind === 'deposit' && item.alias === data.player && amount === data.amount;
    case 'session_key_authorized':
    case 'session_key_revoked':
      return (
        item.kind === (e.type === 'session_key_authorized' ? 'setup' : 'revoke') && item.alias === data.player && item.sessionPubkey === data.sessionPubkey
      );
    case 'unattributed_received':
      return item.kind === 'unattributed' && item.signature === data.signature && amount === data.amount;
    case 'lp_deposit_received':
    case 'lp_redeem_received':
      return item.kind === (e.type === 'lp_deposit_received' ? 'lp-deposit' : 'lp-redeem') && lpJobIdOf(item) === data.jobId;
    case 'house_funded':
      return item.kind === 'house' && item.signature === data.signature && amount === data.amount;
    default:
      return false;
  }
}

/** Takes the first unmatched item (in chain order) that the entry journaled, or null. */
export function takeMatch(pending: ChainItem[], e: JournalRecord, data: Json): ChainItem | null {
  const i = pending.findIndex((item) => itemMatches(item, e, data));
  if (i < 0) return null;
  return pending.splice(i, 1)[0] ?? null;
}
