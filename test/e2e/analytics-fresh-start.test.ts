// A service that has just started answers analytics: its first queries wait for chDB's schema to be current instead
// of failing on tables its worker has not created yet (a 503 that /ready would not explain).
import { afterAll, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.ts';
import { openSse, type SseClient } from '../helpers/sse.ts';

let svc: TestService | undefined;
let stream: SseClient | undefined;
afterAll(async () => {
  stream?.close();
  await svc?.cleanup();
});

it('answers rankings, stats, activity and the live stream the moment it listens, on chDB', async () => {
  svc = await startTestService();
  // Sent at once, before the worker's first pass could have migrated anything.
  const [first, ...others] = await Promise.all(
    ['rankings', 'stats', 'activity'].map(async (route) => {
      const res = await fetch(`${svc!.api}/${route}`);
      return { route, status: res.status, body: await res.json() };
    }),
  );
  for (const answer of [first, ...others]) expect(answer, answer?.route).toMatchObject({ status: 200 });
  expect(first?.body.totals).toEqual({ plays: 0, wagered: 0, paidOut: 0, houseNet: 0 });
  stream = await openSse(`${svc.api}/activity/stream`);
  expect(stream.status).toBe(200);
  const [snapshot] = await stream.until('the snapshot', (events) => events.length > 0);
  expect(snapshot).toMatchObject({ event: 'snapshot', data: { type: 'snapshot', snapshot: { latestPlays: [] } } });
}, 60_000);
