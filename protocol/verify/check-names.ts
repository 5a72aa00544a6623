// The verifier's check names: a closed list, since tools and monitors match on them.

/** The checks of one bet or turn: a Sweeper ticket runs them once per turn, named `turn[k].<check>`. */
export const TURN_CHECK_NAMES = [
  'payload-hash',
  'protocol',
  'session-signature',
  'ack-signature',
  'ack-binding',
  'commit-in-time',
  'commitment',
  'reveal-signature',
  'rng-reveal',
  'forfeit-deadline',
  'session-key',
  // A Sweeper turn's own checks.
  'order',
  'ticket-binding',
  'rules',
] as const;

/** Every other check, by what it is about. */
export const CHECK_NAMES = [
  // A receipt.
  'receipt',
  'game',
  'verifier-payload',
  'closed-by',
  'ticket-ended',
  'outcome',
  'payout',
  'bet-log-entry',
  'receipt-fields',
  'entry-hash',
  'anchor',
  'anchored',
  'inclusion',
  'on-chain-commit',
  // The service and the chain it names.
  'trust-root',
  'rpc-cluster',
  'vault',
  'commit-account',
  'rng-heads',
  // The commit log, its checkpoint and its entries.
  'checkpoint',
  'checkpoint-signature',
  'checkpoint-witnesses',
  'consistency',
  'commit-order',
  'on-chain-unique',
  'commit-rng-reveals',
  'commit-manifests',
  'published-on-chain',
  'on-chain-published',
  'published-commits',
  'entries-served',
  'entry-leaves',
  'commit-roots',
  'rng-index-unique',
  'receipts',
  'log-entry',
  // The manifest chain.
  'manifest-signatures',
  'manifest-links',
  'manifest-fork',
  'manifest-events',
  'manifest-history',
  // A state proof.
  'state-proof',
  'state-root',
  'sum-proof',
  'solvency',
  'leaf-id',
  'leaf',
  'total-liabilities',
  'wallet',
] as const;

export type TurnCheckName = (typeof TURN_CHECK_NAMES)[number];

/** Where a game's turns are checked: `''` for a one-turn bet, `turn[k].` for the turns of a ticket. */
export type TurnPrefix = '' | `turn[${number}].`;

/** A check's stable name, as reports carry it. */
export type CheckName = (typeof CHECK_NAMES)[number] | `${TurnPrefix}${TurnCheckName}`;

const NAMES: ReadonlySet<string> = new Set<string>([...CHECK_NAMES, ...TURN_CHECK_NAMES]);
const TURN_NAMES: ReadonlySet<string> = new Set<string>(TURN_CHECK_NAMES);
const TURN_PREFIX = /^turn\[\d+\]\./;

/** For names that crossed an untyped boundary (a worker thread's bundle, a saved report). */
export const isCheckName = (value: unknown): value is CheckName =>
  typeof value === 'string' && (NAMES.has(value) || (TURN_PREFIX.test(value) && TURN_NAMES.has(value.replace(TURN_PREFIX, ''))));
