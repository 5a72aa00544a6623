// Stats per period (GET /api/stats) as a uPlot chart, with the same numbers in a table for screen readers and copying.
import uPlot from 'uplot';
import { h, replace } from '../dom.ts';
import { count, usdc } from '../format.ts';
import type { Period, Stats } from '../types.ts';

const SERIES = [
  { key: 'wagered', label: 'Wagered', color: '#1d4ed8' },
  { key: 'paidOut', label: 'Paid out', color: '#b45309' },
  { key: 'houseNet', label: 'House net', color: '#047857' },
] as const;

const PERIOD_TEXT: Record<Period, string> = {
  day: 'per hour over the last 24 hours',
  month: 'per day over the last 30 days',
  year: 'per month over the last 12 months',
};

function bucketLabel(start: string, period: Period): string {
  const d = new Date(start);
  if (period === 'day') return d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  if (period === 'month') return d.toLocaleDateString([], { month: 'short', day: 'numeric' });
  return d.toLocaleDateString([], { month: 'short', year: 'numeric' });
}

export class StatsChart {
  #plot: uPlot | null = null;
  readonly #resize: ResizeObserver;

  constructor(
    readonly box: HTMLElement,
    readonly legend: HTMLElement,
    readonly table: HTMLTableSectionElement,
    readonly summary: HTMLElement,
  ) {
    replace(
      legend,
      SERIES.map((s) => h('li', {}, h('span', { class: `swatch swatch-${s.key}`, 'aria-hidden': 'true' }), s.label)),
    );
    this.#resize = new ResizeObserver(() => this.#plot?.setSize(this.size()));
    this.#resize.observe(box);
  }

  private size() {
    return { width: Math.max(200, this.box.clientWidth), height: 220 };
  }

  render(stats: Stats): void {
    const xs = stats.buckets.map((b) => Math.floor(Date.parse(b.start) / 1000));
    const data: uPlot.AlignedData = [xs, ...SERIES.map((s) => stats.buckets.map((b) => b[s.key]))];
    this.box.setAttribute('aria-label', `Chart of wagered, paid out and house net ${PERIOD_TEXT[stats.period]}; the table below has the same numbers.`);
    this.#plot?.destroy();
    this.#plot = new uPlot(
      {
        ...this.size(),
        legend: { show: false },
        scales: { x: { time: true } },
        series: [{}, ...SERIES.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: stats.buckets.length <= 31 } }))],
        axes: [{}, { size: 64, values: (_u: uPlot, ticks: number[]) => ticks.map((t) => t.toFixed(2)) }],
      },
      data,
      this.box,
    );
    replace(
      this.table,
      stats.buckets.map((b) =>
        h(
          'tr',
          {},
          h('th', { scope: 'row' }, h('time', { datetime: b.start }, bucketLabel(b.start, stats.period))),
          h('td', { class: 'num' }, count(b.plays)),
          h('td', { class: 'num' }, usdc(b.wagered)),
          h('td', { class: 'num' }, usdc(b.paidOut)),
          h('td', { class: 'num' }, usdc(b.houseNet)),
        ),
      ),
    );
    this.summary.textContent = `${count(stats.totals.plays)} plays, ${usdc(stats.totals.wagered)} wagered, ${usdc(stats.totals.paidOut)} paid out, house net ${usdc(stats.totals.houseNet)} ${PERIOD_TEXT[stats.period]}.`;
  }

  clear(): void {
    this.#plot?.destroy();
    this.#plot = null;
    replace(this.table);
  }
}
