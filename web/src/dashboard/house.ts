// The house panel (NAV, exposure against its limit, bet and payout limits) and the totals panel.
import { h, pair, replace } from '../dom.ts';
import { count, percent, usdc } from '../format.ts';
import type { House, Totals } from '../types.ts';

export function renderHouse(dl: HTMLElement, house: House): void {
  const used = Math.min(1, Math.max(0, house.utilization));
  replace(
    dl,
    h('div', { class: 'card' }, pair('NAV (total value)', h('span', { 'data-field': 'totalValue' }, usdc(house.totalValue)))),
    h('div', { class: 'card' }, pair('LP share price', `${house.sharePrice.toFixed(6)} USDC`)),
    h(
      'div',
      { class: 'card wide' },
      pair(
        'Open exposure',
        h('span', { 'data-field': 'openExposure' }, `${usdc(house.openExposure)} of ${usdc(house.maxExposure)}`),
        h('span', { class: 'meter', role: 'img', 'aria-label': `${percent(used)} of the exposure limit in use` }, h('span', { class: 'fill' })),
        h('span', { class: 'hint' }, `${percent(used)} of the limit in use`),
      ),
    ),
    h('div', { class: 'card' }, pair('Maximum bet', h('span', { 'data-field': 'maxBet' }, usdc(house.maxBet)))),
    h('div', { class: 'card' }, pair('Maximum payout', h('span', { 'data-field': 'maxPayout' }, usdc(house.maxPayout)))),
    h('div', { class: 'card' }, pair('LP principal staked', usdc(house.totalStaked))),
    h('div', { class: 'card' }, pair('Bankroll (capital and LP principal)', usdc(house.baseBankroll))),
    h('div', { class: 'card' }, pair('APR', percent(house.apr))),
  );
  // The bar's width is set through the CSSOM, which a strict style-src still allows.
  const fill = dl.querySelector<HTMLElement>('.meter .fill');
  if (fill) fill.style.width = `${(used * 100).toFixed(2)}%`;
}

/** Totals from analytics (all-time, for the chosen game). */
export function renderTotals(dl: HTMLElement, totals: Totals): void {
  replace(
    dl,
    h('div', { class: 'card' }, pair('Plays', h('span', { 'data-field': 'plays' }, count(totals.plays)))),
    h('div', { class: 'card' }, pair('Wagered', usdc(totals.wagered))),
    h('div', { class: 'card' }, pair('Paid out', usdc(totals.paidOut))),
    h('div', { class: 'card' }, pair('House net', usdc(totals.houseNet))),
  );
}

/** Totals without analytics: the bet log's size and the house's own running figures, for every game. */
export function renderFallbackTotals(dl: HTMLElement, plays: number | null, house: House | null): void {
  replace(
    dl,
    h('div', { class: 'card' }, pair('Plays (bet-log entries)', h('span', { 'data-field': 'plays' }, plays === null ? '—' : count(plays)))),
    h('div', { class: 'card' }, pair('Volume', house ? usdc(house.volume) : '—')),
    h('div', { class: 'card' }, pair('House game net', house ? usdc(house.gameNet) : '—')),
  );
}
