// The receipt page's sections: the game's own facts, the fairness proofs per bet, the on-chain anchor and links.
import { h, pair } from '../dom.ts';
import type { Explorer } from '../explorer.ts';
import { time } from '../format.ts';
import type { Receipt } from '../types.ts';

type Rec = Record<string, unknown>;
const rec = (v: unknown): Rec => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Rec) : {});
const str = (v: unknown): string => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));
const code = (v: unknown) => h('code', {}, str(v));

/** Only http(s) links leave the page; anything else in a receipt stays text. */
function safeLink(href: unknown, text: string, attrs: Record<string, string> = {}): HTMLElement | null {
  if (typeof href !== 'string') return null;
  try {
    const url = new URL(href, location.origin);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
    const external = url.origin !== location.origin;
    const target = external ? url.href : `${url.pathname}${url.search}`;
    return h('a', { href: target, ...(external ? { rel: 'noopener noreferrer', target: '_blank' } : {}), ...attrs }, text);
  } catch {
    return null;
  }
}

const multiplier = (bps: unknown) => (typeof bps === 'number' ? `${(bps / 10_000).toFixed(4).replace(/0+$/, '').replace(/\.$/, '')}×` : '—');

function diceSection(receipt: Receipt) {
  const r = rec(receipt.result);
  const roll = typeof r.rollDisplay === 'number' ? r.rollDisplay.toFixed(2) : str(r.roll);
  return h(
    'section',
    { 'aria-labelledby': 'game-h' },
    h('h2', { id: 'game-h' }, 'The roll'),
    h(
      'dl',
      { class: 'facts' },
      pair('Roll', h('span', { 'data-field': 'roll' }, roll), ' (0.00 to 99.99)'),
      pair('Bet', `roll ${str(r.direction)} ${str(r.target)}`),
      pair('Multiplier', multiplier(r.multiplierBps)),
    ),
  );
}

function sweeperSection(receipt: Receipt) {
  const r = rec(receipt.result);
  const input = rec(receipt.input);
  const turns = Array.isArray(input.turns) ? input.turns.map(rec) : [];
  const columns = Array.isArray(r.resultColumns) ? r.resultColumns : [];
  let choice = 0;
  return h(
    'section',
    { 'aria-labelledby': 'game-h' },
    h('h2', { id: 'game-h' }, 'The ticket'),
    h(
      'dl',
      { class: 'facts' },
      pair('Mode', str(input.mode)),
      pair('Outcome', h('span', { 'data-field': 'outcome' }, str(r.outcome).replace('_', ' '))),
      pair('Rows cleared', str(r.rowsWon)),
      // A busted ticket pays nothing, whatever multiplier its cleared rows had reached.
      pair('Multiplier', receipt.payout > 0 ? multiplier(r.multiplierBps) : '—'),
    ),
    h(
      'div',
      { class: 'table-wrap', tabindex: 0, role: 'region', 'aria-labelledby': 'turns-caption' },
      h(
        'table',
        {},
        h('caption', { id: 'turns-caption' }, 'Turns in order'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            h('th', { scope: 'col' }, 'Turn'),
            h('th', { scope: 'col' }, 'Move'),
            h('th', { scope: 'col' }, 'Mine in column'),
            h('th', { scope: 'col' }, 'Result'),
          ),
        ),
        h(
          'tbody',
          {},
          turns.map((t, i) => {
            const isChoice = t.kind === 'choice';
            const mine = isChoice ? columns[choice++] : undefined;
            const result = !isChoice ? 'Cashed out' : mine === undefined ? 'Not revealed' : mine === t.choiceColumn ? 'Mine' : 'Safe';
            return h(
              'tr',
              {},
              h('td', { class: 'num' }, String(i + 1)),
              h('td', {}, isChoice ? `Row ${Number(t.row) + 1}, column ${Number(t.choiceColumn) + 1}` : 'Cash out'),
              h('td', {}, mine === undefined ? '—' : `Column ${Number(mine) + 1}`),
              h('td', { class: result === 'Mine' ? 'lost' : result === 'Safe' ? 'won' : undefined }, result),
            );
          }),
        ),
      ),
    ),
  );
}

/** The proof material of one committed bet (a dice bet, or one Sweeper turn). */
function betProof(bet: Rec, ex: Explorer | null) {
  const payload = rec(bet.betPayload);
  const ack = rec(bet.ack);
  const session = typeof payload.sessionPubkey === 'string' ? payload.sessionPubkey : null;
  return h(
    'dl',
    { class: 'facts' },
    pair('Bet payload hash', code(bet.betPayloadHash)),
    pair('Client seed commitment', code(payload.commitment)),
    pair('Client seed (revealed)', code(bet.clientSeedRaw)),
    pair('Session key', code(session), session && ex ? [' ', safeLink(ex.account(session), 'on the explorer')] : null),
    pair('Bet nonce', str(payload.betNonce)),
    pair('RNG chain head', code(ack.rngChainHead)),
    pair('RNG index', h('span', { 'data-field': 'rngIndex' }, str(ack.rngIndex))),
    pair('RNG value (revealed)', code(bet.rngReveal)),
    pair('Operator ack hash', code(ack.ackHash)),
    pair('Committed', typeof ack.committedAt === 'string' ? h('time', { datetime: ack.committedAt }, time(ack.committedAt)) : '—'),
    pair('Reveal deadline', typeof ack.revealDeadline === 'string' ? h('time', { datetime: ack.revealDeadline }, time(ack.revealDeadline)) : '—'),
  );
}

function proofsSection(receipt: Receipt, ex: Explorer | null) {
  const vp = rec(receipt.verifierPayload);
  const turns = Array.isArray(vp.turns) ? vp.turns.map(rec) : null;
  return h(
    'section',
    { 'aria-labelledby': 'proofs-h' },
    h('h2', { id: 'proofs-h' }, 'Fairness proofs'),
    h(
      'p',
      { class: 'hint' },
      "The player committed to a client seed before the operator drew its random value; the outcome is computed from both, and the operator's value chains back to a head it committed on-chain beforehand.",
    ),
    turns ? turns.map((t, i) => h('details', { open: i === 0 ? true : undefined }, h('summary', {}, `Turn ${i + 1}`), betProof(t, ex))) : betProof(vp, ex),
  );
}

function anchorSection(receipt: Receipt) {
  const a = receipt.anchor;
  const committed = a.status === 'committed';
  return h(
    'section',
    { 'aria-labelledby': 'anchor-h' },
    h('h2', { id: 'anchor-h' }, 'On-chain anchor'),
    committed
      ? null
      : h('p', { class: 'pending', 'data-field': 'anchor-pending' }, 'Waiting for the next on-chain commit of the bet log; the proof fields fill in then.'),
    h(
      'dl',
      { class: 'facts' },
      pair('Status', h('span', { 'data-field': 'anchor-status' }, a.status)),
      pair('Commit', code(a.commitId)),
      pair('Bet-log position', a.betLogIndex === null ? '—' : `entry ${a.betLogIndex} of ${str(a.entryCount)}`),
      pair('Entry leaf hash', code(a.betLogEntryHash)),
      pair('Bet-log root', code(a.betLogRoot)),
      pair(
        'Inclusion proof',
        a.betLogProof.length
          ? h(
              'ol',
              { class: 'proof-path' },
              a.betLogProof.map((p) => h('li', {}, code(p))),
            )
          : committed
            ? 'none needed (a one-entry log)'
            : '—',
      ),
      pair('Liabilities root', code(a.stateRoot)),
      pair('Commit transaction', code(a.commitSignature)),
      pair('Anchor key', code(a.commitAccount)),
    ),
  );
}

function linksSection(receipt: Receipt) {
  const id = encodeURIComponent(receipt.id);
  const items = [
    safeLink(`/verify?id=${id}`, 'Verify this play in your browser', { 'data-link': 'verify' }),
    safeLink(receipt.anchor.commitTransactionUrl, 'Commit transaction on the explorer', { 'data-link': 'commit-tx' }),
    safeLink(receipt.anchor.commitExplorerUrl, 'Anchor key on the explorer', { 'data-link': 'anchor-account' }),
    safeLink(`/api/receipts/${id}`, 'This receipt as JSON', { 'data-link': 'json' }),
  ].filter((a) => a !== null);
  return h(
    'nav',
    { 'aria-label': 'Receipt links' },
    h(
      'ul',
      { class: 'links' },
      items.map((a) => h('li', {}, a)),
    ),
  );
}

export function receiptSections(receipt: Receipt, ex: Explorer | null): Node[] {
  return [
    linksSection(receipt),
    receipt.game === 'sweeper' ? sweeperSection(receipt) : diceSection(receipt),
    proofsSection(receipt, ex),
    anchorSection(receipt),
    h(
      'details',
      {},
      h('summary', {}, 'The whole receipt (JSON)'),
      h('pre', { class: 'json', tabindex: 0, 'aria-label': 'Receipt JSON' }, JSON.stringify(receipt, null, 2)),
    ),
  ];
}
