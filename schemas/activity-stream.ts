// GET /api/activity/stream: its query and headers, and the Server-Sent Events it sends (design §8 shapes).
import { Type } from 'typebox';
import { ActivityResponse as Activity, Play } from './analytics.ts';

const Game = Type.Union([Type.Literal('all'), Type.Literal('dice'), Type.Literal('sweeper')], {
  description: 'which plays to stream: all, dice or sweeper (default all)',
});

export const StreamQuery = Type.Object({
  game: Type.Optional({ ...Game, examples: ['all'] }),
  lastEventId: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'resume after this event id, as the Last-Event-ID header does (for clients that cannot set it); the header wins',
      examples: [12],
    }),
  ),
});

export const StreamHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      description:
        'the id of the last event received (EventSource sends it when it reconnects): the plays after it are replayed from the journal, or a fresh snapshot is sent when they are no longer there; anything but a journal seq is ignored',
      examples: ['12'],
    }),
  ),
});

/** The stream's snapshot is what GET /api/activity answers: the same example. */
const EXAMPLE_ACTIVITY = (Activity as { examples?: unknown[] }).examples?.[0];

export const SnapshotEvent = Type.Object(
  { type: Type.Literal('snapshot', { description: "always 'snapshot'" }), snapshot: Activity },
  { description: 'data of a `snapshot` event: the activity when the stream (re)starts', examples: [{ type: 'snapshot', snapshot: EXAMPLE_ACTIVITY }] },
);

const EXAMPLE_NEXT_PLAY = {
  receiptId: 'sweeper_t_3QJmnh2sYv9c',
  game: 'sweeper',
  player: 'p_UwWJ2XsPysN',
  source: 'api',
  betAmount: 1,
  payout: 1.94,
  profit: 0.94,
  won: true,
  settledAt: '2026-11-23T16:03:41.007Z',
};

export const PlayEvent = Type.Object(
  { type: Type.Literal('play', { description: "always 'play'" }), play: Play },
  { description: 'data of a `play` event: one settled play of the chosen game', examples: [{ type: 'play', play: EXAMPLE_NEXT_PLAY }] },
);

const EXAMPLE_STREAM =
  `id: 5\nevent: snapshot\ndata: ${JSON.stringify({ type: 'snapshot', snapshot: EXAMPLE_ACTIVITY })}\n\n` +
  `id: 9\nevent: play\ndata: ${JSON.stringify({ type: 'play', play: EXAMPLE_NEXT_PLAY })}\n\n` +
  ': keepalive\n\n';

/** The stream is text, written by the route itself; the schema only documents it. */
export const StreamResponse = {
  description: 'A Server-Sent Events stream: a snapshot, then each settled play',
  content: {
    'text/event-stream': {
      schema: Type.String({
        description:
          'Server-Sent Events (text/event-stream). Each event is `id: <journal seq>`, `event: snapshot` or `event: play`, and one `data:` line of JSON (shapes in x-pfws-events). ' +
          'On connect: one `snapshot` whose id is the journal seq at that moment, then a `play` for each settled play of the chosen game after it, in seq order. ' +
          'A reconnect with Last-Event-ID (EventSource sends it) replays the plays missed since, from the journal; if they are no longer there (or too many) it gets a fresh snapshot instead. ' +
          'A comment line (`: keepalive`) comes every 15 s. A client that does not keep up (its unsent bytes pass a bound) is disconnected, and resumes with Last-Event-ID.',
      }),
      example: EXAMPLE_STREAM,
      'x-pfws-events': {
        snapshot: { description: 'the activity when the stream (re)starts', schema: SnapshotEvent },
        play: { description: 'one settled play of the chosen game', schema: PlayEvent },
      },
    },
  },
};
