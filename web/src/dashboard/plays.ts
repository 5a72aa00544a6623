// Tables of plays (the live feed, the day's top wagers): newest first, each linked to its receipt page.
import { h, replace } from '../dom.ts';
import { signedUsdc, usdc } from '../format.ts';
import type { Play, Receipt } from '../types.ts';

const gameName = (game: string) => (game === 'dice' ? 'Dice' : game === 'sweeper' ? 'Sweeper' : game);

function row(play: Play, fresh: boolean): HTMLTableRowElement {
  const settled = Date.parse(play.settledAt);
  return h(
    'tr',
    { 'data-receipt-id': play.receiptId, class: fresh ? 'fresh' : undefined },
    h('td', { class: 'opt' }, h('time', { datetime: play.settledAt }, Number.isFinite(settled) ? new Date(settled).toLocaleTimeString() : play.settledAt)),
    h('td', {}, gameName(play.game)),
    h('td', {}, h('span', { class: 'alias' }, play.player)),
    h('td', { class: 'opt' }, play.source),
    h('td', { class: 'num' }, usdc(play.betAmount)),
    h('td', { class: 'num opt' }, usdc(play.payout)),
    h('td', { class: play.won ? 'won' : 'lost' }, play.won ? `Won ${signedUsdc(play.profit)}` : `Lost ${signedUsdc(play.profit)}`),
    h('td', {}, h('a', { href: `/receipts/${encodeURIComponent(play.receiptId)}`, 'aria-label': `Receipt ${play.receiptId}` }, 'Receipt')),
  );
}

/** A bounded, de-duplicated list of plays rendered into a `<tbody>`. */
export class PlayList {
  #plays: Play[] = [];

  constructor(
    readonly body: HTMLTableSectionElement,
    readonly limit = 20,
    readonly emptyText = 'No plays yet.',
  ) {
    this.render(new Set());
  }

  get plays(): readonly Play[] {
    return this.#plays;
  }

  /** Replaces the list (a snapshot). */
  set(plays: readonly Play[]): void {
    this.#plays = plays.slice(0, this.limit);
    this.render(new Set());
  }

  /** Adds plays at the top, newest first; known ones are skipped. */
  add(plays: readonly Play[]): void {
    const known = new Set(this.#plays.map((p) => p.receiptId));
    const fresh = plays.filter((p) => !known.has(p.receiptId));
    if (!fresh.length) return;
    this.#plays = [...fresh, ...this.#plays].slice(0, this.limit);
    this.render(new Set(fresh.map((p) => p.receiptId)));
  }

  private render(fresh: Set<string>): void {
    if (!this.#plays.length) {
      replace(this.body, h('tr', {}, h('td', { colspan: 8, class: 'empty' }, this.emptyText)));
      return;
    }
    replace(
      this.body,
      this.#plays.map((p) => row(p, fresh.has(p.receiptId))),
    );
  }
}

/** A receipt read as a play (the fallback feed has receipts, not analytics rows). */
export function playOfReceipt(receipt: Receipt): Play {
  const entry = receipt.verifierPayload?.betLogEntry as { settledAt?: unknown } | undefined;
  return {
    receiptId: receipt.id,
    game: receipt.game,
    player: receipt.player,
    source: receipt.source,
    betAmount: receipt.betAmount,
    payout: receipt.payout,
    profit: receipt.profit,
    won: receipt.status === 'won',
    settledAt: typeof entry?.settledAt === 'string' ? entry.settledAt : receipt.createdAt,
  };
}
