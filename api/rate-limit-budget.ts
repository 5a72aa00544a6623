// @fastify/rate-limit's store for one budget shared by every API process, counted in-process: a process leases
// slots of a key's window from Redis in chunks and hands them out locally, so most requests make no Redis call.
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Lease, RateLimitLeases } from '../store/rate-limit.ts';

/**
 * Each lease takes this share of what is left of the window's budget (at least one slot), so the slots a process
 * leased and never used, lost when the window ends, stay a small part of the budget, and nearly none near its end.
 */
export const LEASE_SHARE = 16;
const MAX_TRACKED_KEYS = 10_000;

interface Window {
  endsAtMs: number;
  /** The next slot this process hands out, and the end (exclusive) of the slots it holds. */
  next: number;
  end: number;
  /** Every slot of the window is leased (the budget is spent): refuse without asking Redis until it ends. */
  spent: boolean;
  leasing: Promise<void> | null;
}

type Callback = Parameters<FastifyRateLimitStore['incr']>[1];

/** Builds the store class @fastify/rate-limit instantiates (its `store` option). */
export function leasedBudgetStore(leases: RateLimitLeases, now: () => number = Date.now): FastifyRateLimitStoreCtor {
  const windows = new Map<string, Window>();

  function track(id: string, window: Window): void {
    if (windows.size >= MAX_TRACKED_KEYS) {
      const at = now();
      for (const [k, w] of windows) if (w.endsAtMs <= at && !w.leasing) windows.delete(k);
      if (windows.size >= MAX_TRACKED_KEYS) windows.delete(windows.keys().next().value as string);
    }
    windows.set(id, window);
  }

  async function lease(id: string, window: Window, timeWindow: number, max: number): Promise<void> {
    const seen = window.endsAtMs > now() ? window.end - 1 : 0;
    const count = Math.max(1, Math.floor((max - seen) / LEASE_SHARE));
    const granted: Lease = await leases.lease(id, count, timeWindow);
    const first = granted.total - count + 1;
    window.endsAtMs = now() + granted.ttlMs;
    window.next = first;
    window.end = Math.min(granted.total, max) + 1;
    window.spent = granted.total >= max;
  }

  function take(window: Window, max: number, at: number) {
    const ttl = window.endsAtMs - at;
    if (window.next < window.end) return { current: window.next++, ttl };
    return window.spent ? { current: max + 1, ttl } : null;
  }

  return class LeasedBudgetStore implements FastifyRateLimitStore {
    incr(id: string, cb: Callback, timeWindow: number, max: number): void {
      let window = windows.get(id);
      if (!window) {
        window = { endsAtMs: 0, next: 1, end: 1, spent: false, leasing: null };
        track(id, window);
      }
      const at = now();
      if (window.endsAtMs > at && !window.leasing) {
        const taken = take(window, max, at);
        if (taken) return cb(null, taken);
      }
      const w = window;
      // One lease in flight per key: requests that arrive meanwhile wait for it, then take from it.
      w.leasing ??= lease(id, w, timeWindow, max).finally(() => {
        w.leasing = null;
      });
      w.leasing.then(
        () => this.incr(id, cb, timeWindow, max),
        (err: Error) => cb(err),
      );
    }

    child(): LeasedBudgetStore {
      return this;
    }
  };
}
