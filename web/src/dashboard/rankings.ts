// The rankings table (GET /api/rankings): 20 actors by the chosen metric, for a game and a source.
import { h, replace } from '../dom.ts';
import { count, percent, signedUsdc, usdc } from '../format.ts';
import type { Actor, Metric, Rankings } from '../types.ts';

export const METRIC_NAMES: Record<Metric, string> = {
  profit: 'Profit',
  wagered: 'Wagered',
  plays: 'Plays',
  roi: 'Return on wager',
  winRate: 'Win rate',
};

export function actorRows(body: HTMLTableSectionElement, actors: readonly Actor[], empty: string): void {
  if (!actors.length) {
    replace(body, h('tr', {}, h('td', { colspan: 8, class: 'empty' }, empty)));
    return;
  }
  replace(
    body,
    actors.map((a) =>
      h(
        'tr',
        { 'data-player': a.player },
        h('td', { class: 'num' }, count(a.rank)),
        h('td', {}, h('span', { class: 'alias' }, a.player)),
        h('td', { class: 'num' }, count(a.plays)),
        h('td', { class: 'num' }, usdc(a.wagered)),
        h('td', { class: 'num' }, usdc(a.paidOut)),
        h('td', { class: 'num' }, signedUsdc(a.profit)),
        h('td', { class: 'num' }, percent(a.roi)),
        h('td', { class: 'num' }, percent(a.winRate)),
      ),
    ),
  );
}

export function renderRankings(body: HTMLTableSectionElement, caption: HTMLElement, note: HTMLElement, r: Rankings): void {
  caption.textContent = `Top players by ${METRIC_NAMES[r.metric].toLowerCase()}, ${r.game === 'all' ? 'all games' : r.game}, ${r.source === 'all' ? 'all sources' : `source ${r.source}`}`;
  const minPlays = r.metric === 'roi' || r.metric === 'winRate' ? ' Return and win rate rank players with at least 10 plays.' : '';
  actorRows(body, r.actors, 'No players ranked yet.');
  note.textContent = `${count(r.totals.plays)} plays, ${usdc(r.totals.wagered)} wagered, ${usdc(r.totals.paidOut)} paid out.${minPlays}`;
}
