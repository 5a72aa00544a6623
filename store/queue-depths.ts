// How many jobs wait, run, are delayed or failed in each BullMQ queue of the worker role, read from any process.
import { Queue } from 'bullmq';
import { QUEUE_NAMES, type QueueName } from './keys.ts';
import { createQueueRedis, type Redis, type RedisAddress } from './redis.ts';

export const JOB_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed'] as const;
export type JobState = (typeof JOB_STATES)[number];

export class QueueDepths {
  #connection: Redis | null = null;
  #queues: Queue[] | null = null;

  constructor(
    readonly redis: RedisAddress,
    readonly prefix: string,
  ) {}

  /** Job counts per queue and state; the connection opens on first use. */
  async counts(): Promise<Record<QueueName, Record<JobState, number>>> {
    if (!this.#queues) {
      const connection = createQueueRedis(this.redis);
      connection.on('error', () => {});
      this.#connection = connection;
      this.#queues = QUEUE_NAMES.map((name) => new Queue(name, { connection, prefix: this.prefix }));
    }
    const counts = await Promise.all(this.#queues.map((q) => q.getJobCounts(...JOB_STATES)));
    return Object.fromEntries(QUEUE_NAMES.map((name, i) => [name, counts[i] as Record<JobState, number>])) as Record<QueueName, Record<JobState, number>>;
  }

  async close(): Promise<void> {
    await Promise.all((this.#queues ?? []).map((q) => q.close()));
    await this.#connection?.quit().catch(() => this.#connection?.disconnect());
  }
}
