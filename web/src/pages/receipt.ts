// One receipt, readable: the outcome, the game's own facts, the proofs, the on-chain anchor and explorer links.
// A receipt still waiting for its on-chain commit is re-read until the commit lands.
import { ApiError, getJson } from '../api.ts';
import { byId, h, pair, replace } from '../dom.ts';
import { explorer } from '../explorer.ts';
import { signedUsdc, time, usdc } from '../format.ts';
import type { PublishedConfig, Receipt } from '../types.ts';
import { receiptSections } from '../receipt/sections.ts';

const title = byId('title');
const status = byId('load-status');
const box = byId('receipt');

/** The id in `/receipts/<id>`; a hard reload of that URL lands here through the server's page fallback. */
function receiptId(): string | null {
  const match = /^\/receipts\/([^/]+)\/?$/.exec(location.pathname);
  if (!match) return null;
  try {
    return decodeURIComponent(match[1]!);
  } catch {
    return null;
  }
}

function render(receipt: Receipt, config: PublishedConfig | null): void {
  const game = receipt.game === 'dice' ? 'Dice' : receipt.game === 'sweeper' ? 'Sweeper' : receipt.game;
  document.title = `${game} play ${receipt.id} · pfws`;
  replace(title, `${game} play `, h('code', {}, receipt.id));
  const outcome = receipt.status === 'won' ? 'Won' : receipt.status === 'lost' ? 'Lost' : receipt.status === 'forfeited' ? 'Forfeited' : receipt.status;
  replace(
    box,
    h(
      'div',
      { class: 'summary' },
      h('span', { class: `outcome ${receipt.status === 'won' ? 'won' : 'lost'}`, 'data-field': 'status' }, outcome),
      h('span', {}, `Bet ${usdc(receipt.betAmount)} · paid ${usdc(receipt.payout)} · ${signedUsdc(receipt.profit)}`),
    ),
    h(
      'dl',
      { class: 'facts' },
      pair('Player', h('span', { class: 'alias' }, receipt.player)),
      pair('Source', receipt.source),
      pair('Game', h('code', {}, receipt.gameId)),
      pair('Settled', h('time', { datetime: receipt.createdAt }, time(receipt.createdAt))),
    ),
    receiptSections(receipt, config ? explorer(config) : null),
  );
  box.hidden = false;
}

async function main(): Promise<void> {
  const id = receiptId();
  if (!id) {
    status.textContent = 'No receipt id in the address: receipt pages live at /receipts/<id>.';
    return;
  }
  const config = await getJson<PublishedConfig>('/protocol/v1/config').catch(() => null);
  for (;;) {
    let receipt: Receipt;
    try {
      receipt = (await getJson<{ receipt: Receipt }>(`/receipts/${encodeURIComponent(id)}`)).receipt;
    } catch (err) {
      title.textContent = 'Receipt not found';
      status.textContent =
        err instanceof ApiError && err.code === 'RECEIPT_NOT_FOUND'
          ? `There is no receipt with id ${id}.`
          : `Could not read receipt ${id}: ${(err as Error).message}`;
      status.classList.add('error');
      return;
    }
    render(receipt, config);
    const pending = receipt.anchor.status !== 'committed';
    status.textContent = pending ? 'This play is settled; its on-chain anchor is on the way and this page updates when it lands.' : '';
    if (!pending) return;
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

void main();
