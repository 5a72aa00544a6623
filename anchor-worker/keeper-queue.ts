/**
 * BullMQ wiring of the keeper. A light scheduler enqueues what the ledger says is open: one withdrawal pass while
 * withdrawals wait (each pass reconciles those in flight and sends the next few in the ledger's fair order; a pass
 * that left some to send is followed by another at once), LP deposits and redemptions to value, and valued LP jobs
 * not yet done (one step each: no job waits for a landing, so none holds the others up). Jobs deduplicate on what
 * they work on, the queue runs one job at a time across every worker process, transient failures retry with capped
 * backoff, and a landed transaction that failed leaves its job to an operator (unrecoverable).
 * @module
 */
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Logger } from 'pino';
import { queueConnections, type RedisAddress } from '../store/redis.ts';
import { Keeper, type KeeperDeps, type KeeperOptions, type StepResult, type WithdrawalPass } from '../funding/keeper.ts';
import { startPollLoop } from './poll-loop.ts';

export interface KeeperQueueDeps {
  keeper: KeeperDeps;
  /** The ledger's Redis (a URL, or the Sentinels' primary). */
  redis: RedisAddress;
  /** BullMQ key prefix (store/keys.ts). */
  queuePrefix: string;
  logger: Logger;
}

export interface KeeperQueueOptions extends KeeperOptions {
  /**
   * How often the scheduler looks for open work.
   * @defaultValue 500
   */
  pollMs?: number;
}

export interface KeeperHandle {
  keeper: Keeper;
  /** Enqueues whatever is open now (used by tests). */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

const JOB_OPTIONS = { attempts: 1_000_000, backoff: { type: 'capped' }, removeOnComplete: 100, removeOnFail: 1000 };
const backoffStrategy = (attemptsMade: number): number => Math.min(30_000, 200 * 2 ** Math.min(attemptsMade, 10));

type KeeperJobData = { id?: string };

export async function startKeeper(deps: KeeperQueueDeps, options: KeeperQueueOptions = {}): Promise<KeeperHandle> {
  const log = deps.logger.child({ role: 'worker', part: 'keeper' });
  const keeper = new Keeper(deps.keeper, options);
  const { withdrawals, lp } = deps.keeper;
  const connections = queueConnections(deps.redis);
  const connection = connections.connection;
  const prefix = deps.queuePrefix;
  const queue = new Queue<KeeperJobData>('keeper', { connection: connection(), prefix });
  // A Redis outage reaches it as connection errors; the worker below and the service's connection report them.
  queue.on('error', () => undefined);
  // One keeper job at a time across every worker: LP valuations go in order, and payouts never race.
  await queue.setGlobalConcurrency(1);

  const stepOf = (result: StepResult, job: Job<KeeperJobData>) => {
    if (result === 'stuck') throw new UnrecoverableError(`keeper job ${job.name} ${job.data.id ?? ''} is stuck; see the ledger's keeper:stuck set`);
    return result;
  };
  const worker = new Worker<KeeperJobData>(
    'keeper',
    async (job) => {
      if (job.name === 'withdraw-pass') return keeper.withdrawalPass();
      if (job.name === 'lp-send') return stepOf(await keeper.stepLpJob(job.data.id!), job);
      if (job.name === 'lp-fix') return keeper.fixLp();
      throw new UnrecoverableError(`unknown keeper job ${job.name}`);
    },
    { connection: connection(), prefix, concurrency: 1, lockDuration: 30_000, stalledInterval: 5_000, maxStalledCount: 1_000, settings: { backoffStrategy } },
  );
  // A pass that left withdrawals to send is followed by the next at once (its deduplication ends as it completes).
  worker.on('completed', (job, result: unknown) => {
    if (job.name === 'withdraw-pass' && ((result as WithdrawalPass | undefined)?.deferred ?? 0) > 0) {
      enqueue('withdraw-pass').catch((err) => log.warn({ err }, 'keeper: could not enqueue the next withdrawal pass'));
    }
  });
  worker.on('failed', (job, err) => log.warn({ err, job: job?.name, id: job?.data.id, attempts: job?.attemptsMade }, 'keeper: job failed'));
  worker.on('error', (err) => log.warn({ err }, 'keeper: worker error'));

  const enqueue = (name: string, id?: string) => queue.add(name, id ? { id } : {}, { ...JOB_OPTIONS, deduplication: { id: id ? `${name}:${id}` : name } });

  // The gate is asked on every tick, work or not, so its verdict (the `keeper` heartbeat) is current for `/ready` and
  // the withdrawal request; each job asks it again before it pays.
  const tick = async () => {
    if ((await deps.keeper.gate.check()).state !== 'clear') return;
    if ((await withdrawals.open(1)).length > 0) await enqueue('withdraw-pass');
    if ((await lp.queuedMints(1)).length > 0 || (await lp.redeemHead()) !== null) await enqueue('lp-fix');
    for (const id of await lp.openJobs(100)) await enqueue('lp-send', id);
  };

  const pollMs = options.pollMs ?? 500;
  const scheduler = startPollLoop(tick, pollMs, (err) => log.warn({ err }, 'keeper: scheduler pass failed'));

  return {
    keeper,
    flush: tick,
    async stop() {
      await scheduler.stop();
      await worker.close();
      await queue.close();
      await connections.closeAll();
    },
  };
}
