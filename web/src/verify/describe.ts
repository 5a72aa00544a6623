// Plain-language names of the verifier core's checks, for the page; the stable check name is shown beside each.

const TEXT: Record<string, string> = {
  receipt: 'The receipt can be read',
  game: 'It is a Protocol V1 bet of a known game',
  'verifier-payload': 'The receipt carries its proof material',
  'payload-hash': 'betPayloadHash is the hash of the signed bet payload',
  protocol: 'The bet payload names the protocol pfws/v1',
  'session-signature': "The player's session key signed the bet",
  'ack-signature': "The operator's ack key signed the acknowledgement",
  'ack-binding': 'The acknowledgement names this bet and its nonce',
  'commit-in-time': 'The bet was committed before its payload expired',
  commitment: 'The revealed client seed matches the commitment made before the draw',
  'reveal-signature': "The player's session key signed the reveal",
  'rng-reveal': "The operator's random value chains back to a head committed on-chain",
  'forfeit-deadline': 'The forfeit waited for the reveal deadline',
  outcome: 'The outcome recomputes from the two seeds',
  payout: 'The amounts recompute from the outcome',
  'bet-log-entry': 'The bet-log entry matches the verified bet',
  'receipt-fields': 'The receipt shows the verified values',
  'ticket-binding': 'The turn belongs to this ticket',
  rules: 'The move follows the game rules',
  order: 'No turn follows the end of the ticket',
  'ticket-ended': 'The turns end the ticket',
  'closed-by': 'The ticket was running when it was closed as idle',
  anchor: 'The receipt has an anchor',
  'entry-hash': "The anchor names this entry's leaf hash",
  anchored: 'The entry is anchored on-chain',
  inclusion: 'The Merkle proof includes the entry under the committed root',
  'commit-account': 'The commit names the published anchor key',
  'on-chain-commit': "The anchor key's memo on-chain commits this root and log size",
  'state-root': 'The liabilities root matches the on-chain memo',
};

/** A check name such as `payout` or `turn[2].commitment`, in words. */
export function describeCheck(name: string): string {
  const turn = /^turn\[(\d+)\]\.(.+)$/.exec(name);
  if (turn) {
    const inner = TEXT[turn[2]!] ?? turn[2]!;
    return `Turn ${Number(turn[1]) + 1}: ${inner.charAt(0).toLowerCase()}${inner.slice(1)}`;
  }
  return TEXT[name] ?? name;
}
