// What every receipt shares: ids, statuses, the anchor object and the bet-log leaf of its entry.
// The per-game receipts are built in dice-receipt.ts and sweeper-receipt.ts, by the service and the verifier alike.
import { canonicalize } from './jcs.ts';
import { leafHashHexOfText } from './merkle.ts';
import type { Hex32 } from './hex32.ts';
import { microToNumber } from './money.ts';

export const RECEIPT_VERSION = 1;
export const DICE_GAME_ID = 'dice:protocol-v1';
export const SWEEPER_GAME_ID = 'sweeper:protocol-v1';

/** `expired`: an idle Sweeper ticket closed with no row won; its stake came back and no randomness was drawn. */
export type ReceiptStatus = 'won' | 'lost' | 'forfeited' | 'expired';

/** Who submitted the play: server-owned metadata, never a client parameter. */
export type PlaySource = 'api' | 'mcp';

/** How the client seed of a turn became known. */
export type RevealedVia = 'reveal' | 'recovery' | 'wallet-memo';

/** A turn's client seed and how it came, or null when the deadline passed without one. */
export interface SeedReveal {
  clientSeedRaw: string;
  /** The session key's signature over revealMessage; null when the seed came from recovery or a wallet memo. */
  revealSignature: string | null;
  via: RevealedVia;
}

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

/** How a stored receipt body names its anchor's leaf hash, just before the value. */
export const LEAF_KEY = '"betLogEntryHash":"';

/**
 * `anchor.betLogEntryHash` of a stored receipt body (JSON text), or undefined. A body names that key once, in its
 * anchor, so the value is read off the text, 30 times cheaper than parsing 4-5 kB; anything else (the key
 * absent, repeated, or its value escaped) is decided by a full parse. A `":"` between the key and a string value
 * cannot occur inside a JSON string, where every quote is escaped.
 */
export function anchorLeafHexOf(body: string): unknown {
  const at = body.indexOf(LEAF_KEY);
  if (at >= 0 && body.indexOf(LEAF_KEY, at + 1) < 0) {
    const from = at + LEAF_KEY.length;
    const end = body.indexOf('"', from);
    const value = body.slice(from, end);
    if (end > from && !value.includes('\\')) return value;
  }
  try {
    return (JSON.parse(body) as { anchor?: { betLogEntryHash?: unknown } } | null)?.anchor?.betLogEntryHash;
  } catch {
    return undefined;
  }
}

/**
 * An entry's bytes in the log, as text: `JCS(entry)`, what entry bundles serve and the leaf hashes.
 * @throws {TypeError} when the entry has no canonical JSON form
 */
export const betLogEntryJson = (entry: unknown): string => canonicalize(entry);

/** The bet-log leaf of an entry's JCS text, `sha256(0x00 ‖ text)`, hex. */
export const betLogLeafHexOfJson = (entryJson: string): Hex32 => leafHashHexOfText(entryJson) as Hex32;

/**
 * The bet-log leaf of an entry, `sha256(0x00 ‖ JCS(entry))`, hex.
 * @throws {TypeError} when the entry has no canonical JSON form
 */
export const betLogLeafHex = (entry: unknown): Hex32 => betLogLeafHexOfJson(betLogEntryJson(entry));

/** The fields every receipt opens with, in their order: ids, game, the public alias, source and amounts. */
export function receiptHead(o: {
  receiptId: string;
  game: 'dice' | 'sweeper';
  gameId: string;
  player: string;
  source: PlaySource;
  wager: bigint;
  payout: bigint;
  status: string;
}) {
  return {
    id: o.receiptId,
    receiptId: o.receiptId,
    game: o.game,
    gameId: o.gameId,
    player: o.player,
    actorAlias: o.player,
    source: o.source,
    betAmount: microToNumber(o.wager),
    payout: microToNumber(o.payout),
    profit: microToNumber(o.payout - o.wager),
    status: o.status,
  };
}

export const diceReceiptId = (betPayloadHash: string): string => `dice_${betPayloadHash.slice(0, 32)}`;
export const sweeperReceiptId = (ticketId: string): string => `sweeper_${ticketId}`;
