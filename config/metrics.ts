/**
 * Process metrics (prom-client): one registry per process, with request latency per route and the bets each
 * process committed and settled. With `node:cluster`, a scrape on any API process returns the sum over every
 * process: the worker asks the primary, the primary collects every registry (its own included) and aggregates
 * them with prom-client's AggregatorRegistry.
 * @module
 */
import cluster, { type Worker } from 'node:cluster';
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry, type MetricObjectWithValues, type MetricValue } from 'prom-client';

export interface ProcessMetrics {
  registry: Registry;
  /** Request latency per method, route template and status; its `_count` is the request rate. */
  httpDuration: Histogram<'method' | 'route' | 'status_code'>;
  /** Bets (Sweeper: turns) committed the first time, per game. */
  betsCommitted: Counter<'game'>;
  /** Bets (Sweeper: turns) settled the first time, per game and source. */
  betsSettled: Counter<'game' | 'source'>;
  /** The bet lifecycle's observer (games/lifecycle.ts), feeding the two counters. */
  observer: { committed(game: string): void; settled(game: string, source: string): void };
  /** The activity stream's observer (analytics/activity-stream.ts): its clients, and those dropped for falling behind. */
  streamObserver: { connected(): void; disconnected(): void; dropped(): void };
  /** Epoch state trees an API built itself for a state proof, the worker holding none of that root (funding/state-proof.ts). */
  stateTreesBuilt: Counter;
}

/**
 * A fresh registry with the process's metrics.
 * @param options.defaultMetrics - also collect Node's process metrics (CPU, memory, event-loop lag)
 */
export function createProcessMetrics(options: { defaultMetrics?: boolean } = {}): ProcessMetrics {
  const registry = new Registry();
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'pfws_' });
  const httpDuration = new Histogram({
    name: 'pfws_http_request_duration_seconds',
    help: 'HTTP request latency by method, route template and status code; _count is the request count',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const betsCommitted = new Counter({
    name: 'pfws_bets_committed_total',
    help: 'Bets committed (Sweeper: turns), per game; re-sent commits are not counted',
    labelNames: ['game'] as const,
    registers: [registry],
  });
  const betsSettled = new Counter({
    name: 'pfws_bets_settled_total',
    help: 'Bets settled (Sweeper: turns) by reveal, recovery, wallet memo or deadline, per game and source',
    labelNames: ['game', 'source'] as const,
    registers: [registry],
  });
  const streamClients = new Gauge({
    name: 'pfws_activity_stream_clients',
    help: 'Clients of GET /api/activity/stream connected to this process',
    registers: [registry],
  });
  const streamDropped = new Counter({
    name: 'pfws_activity_stream_dropped_total',
    help: 'Activity stream clients disconnected because their unsent bytes passed SSE_CLIENT_BUFFER_BYTES',
    registers: [registry],
  });
  const stateTreesBuilt = new Counter({
    name: 'pfws_state_trees_built_total',
    help: "Epoch state trees an API built itself for a state proof because no worker beside it held that commit's tree",
    registers: [registry],
  });
  return {
    registry,
    httpDuration,
    stateTreesBuilt,
    betsCommitted,
    betsSettled,
    observer: {
      committed: (game) => betsCommitted.inc({ game }),
      settled: (game, source) => betsSettled.inc({ game, source }),
    },
    streamObserver: {
      connected: () => streamClients.inc(),
      disconnected: () => streamClients.dec(),
      dropped: () => streamDropped.inc(),
    },
  };
}

type MetricsJson = MetricObjectWithValues<MetricValue<string>>[];

const SCRAPE = 'pfws:metrics:scrape';
const TEXT = 'pfws:metrics:text';
const COLLECT = 'pfws:metrics:collect';
const JSON_REPLY = 'pfws:metrics:json';

interface Message {
  type?: string;
  id?: number;
  text?: string;
  error?: string;
  metrics?: MetricsJson;
}

/**
 * In the cluster primary: answers each worker's scrape with the aggregate of the primary's registry and every
 * connected worker's. A worker that does not answer within `timeoutMs` is left out of that scrape.
 * @returns a function that stops serving
 */
export function serveClusterMetrics(registry: Registry, timeoutMs = 3_000): () => void {
  let nextId = 0;
  const waiting = new Map<number, (metrics: MetricsJson | null) => void>();
  const collectFrom = (worker: Worker) =>
    new Promise<MetricsJson | null>((resolve) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        resolve(null);
      }, timeoutMs);
      waiting.set(id, (metrics) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(metrics);
      });
      worker.send({ type: COLLECT, id });
    });
  const aggregate = async (): Promise<string> => {
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w?.isConnected() === true);
    const parts = await Promise.all([registry.getMetricsAsJSON() as Promise<MetricsJson>, ...workers.map(collectFrom)]);
    return AggregatorRegistry.aggregate(parts.filter((p): p is MetricsJson => p !== null)).metrics();
  };
  const onMessage = (worker: Worker, message: Message) => {
    if (message?.type === JSON_REPLY && typeof message.id === 'number') waiting.get(message.id)?.(message.metrics ?? null);
    if (message?.type === SCRAPE) {
      aggregate().then(
        (text) => worker.send({ type: TEXT, id: message.id, text }),
        (err: Error) => worker.send({ type: TEXT, id: message.id, error: err.message }),
      );
    }
  };
  cluster.on('message', onMessage);
  return () => cluster.off('message', onMessage);
}

/**
 * In a cluster worker: answers the primary's collection with this process's registry, and returns the scrape
 * function of this process, which asks the primary for the aggregate.
 */
export function clusterWorkerScrape(registry: Registry, timeoutMs = 8_000): () => Promise<string> {
  let nextId = 0;
  const waiting = new Map<number, (reply: Message) => void>();
  process.on('message', (message: Message) => {
    if (message?.type === COLLECT) {
      registry.getMetricsAsJSON().then((metrics) => process.send?.({ type: JSON_REPLY, id: message.id, metrics }));
    }
    if (message?.type === TEXT && typeof message.id === 'number') waiting.get(message.id)?.(message);
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`the primary process did not aggregate metrics within ${timeoutMs} ms`));
      }, timeoutMs);
      waiting.set(id, (reply) => {
        clearTimeout(timer);
        waiting.delete(id);
        if (reply.error !== undefined || reply.text === undefined) reject(new Error(reply.error ?? 'no metrics'));
        else resolve(reply.text);
      });
      process.send?.({ type: SCRAPE, id });
    });
}

/** This process's scrape: its own registry, or in a cluster worker, the aggregate of every process. */
export function processScrape(registry: Registry): () => Promise<string> {
  return cluster.isWorker ? clusterWorkerScrape(registry) : () => registry.metrics();
}
