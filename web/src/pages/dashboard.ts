// The live dashboard: the house, totals, the play feed, the day's top wagers and players, rankings and stats.
// Each analytics route is probed; one that is not there yet gets a notice, and the page shows what the house
// and receipt routes give instead.
import { getJson, probe } from '../api.ts';
import { byId } from '../dom.ts';
import { poll } from '../poll.ts';
import type { Activity, Game, House, Metric, Period, Rankings, Source, Stats } from '../types.ts';
import { renderFallbackTotals, renderHouse, renderTotals } from '../dashboard/house.ts';
import { PlayList } from '../dashboard/plays.ts';
import { betLogFeed, streamFeed, type Feed, type FeedEvents } from '../dashboard/feeds.ts';
import { actorRows, renderRankings } from '../dashboard/rankings.ts';
import { StatsChart } from '../dashboard/stats.ts';

const gameSelect = byId<HTMLSelectElement>('game');
const metricSelect = byId<HTMLSelectElement>('metric');
const sourceSelect = byId<HTMLSelectElement>('source');
const periodSelect = byId<HTMLSelectElement>('period');
const body = (id: string) => byId<HTMLTableElement>(id).tBodies[0]!;

const feedList = new PlayList(body('feed'), 20, 'No plays yet. They appear here as they settle.');
const topWagers = new PlayList(body('top-wagers'), 10, 'No plays in the last 24 hours.');
const feedStatus = byId('feed-status');
const totalsEl = byId('totals');
const totalsNote = byId('totals-note');
const chart = new StatsChart(byId('stats-chart'), byId('stats-legend'), body('stats-table'), byId('stats-summary'));

/** Analytics routes that answered "no such route". */
const missing = new Set<string>();
let house: House | null = null;
let betLogSize: number | null = null;
let feed: Feed | null = null;
let live: Activity | null = null;
// Bumped on each (re)start, so a slow probe of an older game choice never installs its feed.
let feedGeneration = 0;

const game = () => gameSelect.value as Game;

function showMissing(route: string, absent: boolean): void {
  if (absent) missing.add(route);
  else missing.delete(route);
  const notice = byId('analytics-notice');
  notice.hidden = missing.size === 0;
  const routes = ['activity', 'rankings', 'stats'].filter((r) => missing.has(r)).map((r) => `/api/${r}`);
  const parts = missing.size ? [`This service does not serve ${routes.join(', ')} yet.`] : [];
  if (missing.has('activity')) {
    parts.push(
      'Until it does, the dashboard shows what the house and receipt routes give: the house state, and the latest plays read from the public bet log ' +
        'and their receipts, refreshed every few seconds. Totals then cover all games, and the top lists of the last 24 hours wait for /api/activity.',
    );
  }
  if (missing.has('rankings') || missing.has('stats')) parts.push('Rankings and charts appear once their routes exist.');
  byId('analytics-notice-text').textContent = parts.join(' ');
}

/** Shows a panel, or in its place the sentence that says which route it waits for. */
function panel(id: string, absent: boolean, text: string): void {
  const hint = byId(`${id}-missing`);
  hint.hidden = !absent;
  hint.textContent = absent ? text : '';
  byId(id === 'day' ? 'day-panels' : `${id}-panel`).hidden = absent;
  const form = document.getElementById(`${id}-form`);
  if (form) form.hidden = absent;
}

function renderTotalsNow(): void {
  if (live) {
    renderTotals(totalsEl, live.totals);
    totalsNote.textContent = `All time, ${game() === 'all' ? 'all games' : game()}.`;
  } else {
    renderFallbackTotals(totalsEl, betLogSize, house);
    totalsNote.textContent = "All time, all games: the bet log's size and the house's own running figures.";
  }
}

const feedEvents: FeedEvents = {
  snapshot(activity) {
    live = activity;
    feedList.set(activity.latestPlays);
    topWagers.set(activity.topWagers);
    actorRows(body('top-actors'), activity.topActors, 'No players in the last 24 hours.');
    renderTotalsNow();
  },
  play(play) {
    feedList.add([play]);
    if (live) {
      // Totals move with each play until the next snapshot or refresh replaces them.
      const t = live.totals;
      live = {
        ...live,
        totals: {
          plays: t.plays + 1,
          wagered: t.wagered + play.betAmount,
          paidOut: t.paidOut + play.payout,
          houseNet: t.houseNet + play.betAmount - play.payout,
        },
      };
      renderTotalsNow();
    }
  },
  status(text, state) {
    feedStatus.textContent = text;
    feedStatus.dataset.state = state;
  },
};

async function startFeed(): Promise<void> {
  const generation = ++feedGeneration;
  feed?.stop();
  feed = null;
  live = null;
  feedList.set([]);
  const activity = await probe<Activity>(`/activity?game=${game()}&limit=20`);
  if (generation !== feedGeneration) return;
  showMissing('activity', activity === null);
  panel('day', activity === null, 'The top wagers and players of the last 24 hours come from /api/activity, which this service does not serve yet.');
  if (activity) {
    feedEvents.snapshot(activity);
    feed = streamFeed(game(), feedEvents);
  } else {
    renderTotalsNow();
    feed = betLogFeed(game(), {
      ...feedEvents,
      size(size) {
        betLogSize = size;
        renderTotalsNow();
      },
    });
  }
}

async function refreshRankings(): Promise<void> {
  const query = `game=${game()}&source=${sourceSelect.value as Source}&metric=${metricSelect.value as Metric}`;
  const rankings = await probe<Rankings>(`/rankings?${query}`);
  showMissing('rankings', rankings === null);
  panel('rankings', rankings === null, 'Rankings come from /api/rankings, which this service does not serve yet.');
  if (rankings) renderRankings(body('rankings'), byId('rankings-caption'), byId('rankings-note'), rankings);
}

async function refreshStats(): Promise<void> {
  const stats = await probe<Stats>(`/stats?game=${game()}&period=${periodSelect.value as Period}`);
  showMissing('stats', stats === null);
  panel('stats', stats === null, 'The charts come from /api/stats, which this service does not serve yet.');
  if (stats) chart.render(stats);
  else chart.clear();
}

async function refreshHouse(): Promise<void> {
  house = (await getJson<{ house: House }>('/house')).house;
  renderHouse(byId('house'), house);
  if (!live) renderTotalsNow();
}

async function refreshActivity(): Promise<void> {
  // The stream carries plays only; the day's top lists and the totals come back with a fresh read.
  if (!live || missing.has('activity')) return;
  const activity = await probe<Activity>(`/activity?game=${game()}&limit=20`);
  if (activity) {
    live = activity;
    topWagers.set(activity.topWagers);
    actorRows(body('top-actors'), activity.topActors, 'No players in the last 24 hours.');
    renderTotalsNow();
  }
}

// What could not be read, by panel; each panel's next successful read clears its line.
const failures = new Map<string, string>();
function showFailures(): void {
  const el = byId('load-error');
  el.hidden = failures.size === 0;
  el.textContent = [...failures.values()].join(' ');
}
const report = (what: string) => (err: unknown) => {
  console.warn(`${what}:`, err);
  failures.set(what, `Could not read ${what}: ${(err as Error).message}.`);
  showFailures();
};
const cleared = (what: string, run: () => Promise<void>) => async () => {
  await run();
  if (failures.delete(what)) showFailures();
};

poll(5_000, cleared('the house', refreshHouse), report('the house'));
const rankings = poll(15_000, cleared('the rankings', refreshRankings), report('the rankings'));
const stats = poll(30_000, cleared('the stats', refreshStats), report('the stats'));
poll(15_000, cleared('the activity', refreshActivity), report('the activity'));
const restartFeed = () => cleared('the plays', startFeed)().catch(report('the plays'));
void restartFeed();

gameSelect.addEventListener('change', () => {
  void restartFeed();
  void rankings.now();
  void stats.now();
});
metricSelect.addEventListener('change', () => void rankings.now());
sourceSelect.addEventListener('change', () => void rankings.now());
periodSelect.addEventListener('change', () => void stats.now());
for (const form of document.querySelectorAll('form')) form.addEventListener('submit', (e) => e.preventDefault());
