// Bounds on what the audited API hands a verifier: every index, length and count is checked against
// these before any work is done on it, so hostile input costs little.
import { SWEEPER_ROWS } from '../sweeper.ts';

/** Longest RNG hash walk for one link; commit memos anchor values far closer than this. */
export const MAX_RNG_WALK = 1_000_000;
/** Highest RNG index accepted at all (a chain is far shorter). */
export const MAX_RNG_INDEX = 2 ** 40;
/** A ticket has at most one turn per row and a cashout. */
export const MAX_SWEEPER_TURNS = SWEEPER_ROWS + 1;
/** Longest string field (a signature, a hash, a base58 key, a timestamp) in a receipt's proof material. */
export const MAX_FIELD_LENGTH = 512;
/** Largest receipt, as JSON, the CLI reads; larger ones are refused unread. */
export const MAX_RECEIPT_BYTES = 256 * 1024;
/** Largest bet log the chain may claim that a verifier will walk (a hostile memo cannot make it loop forever). */
export const MAX_LOG_SIZE = 2 ** 40;
/** Longest page of history a verifier reads for one wallet's session-key memos. */
export const MAX_WALLET_HISTORY = 10_000;

/** A safe integer in [min, max]. */
export const isBoundedInt = (v: unknown, min: number, max: number): v is number => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max;

/** A string no longer than {@link MAX_FIELD_LENGTH}. */
export const isField = (v: unknown): v is string => typeof v === 'string' && v.length <= MAX_FIELD_LENGTH;
