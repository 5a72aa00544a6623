// Operations: liveness, readiness with the reason of each check, and the Prometheus text.
import { Type } from 'typebox';

export const HealthResponse = Type.Object(
  {
    status: Type.Literal('ok', { description: 'always ok: the process answers' }),
    uptimeSeconds: Type.Integer({ minimum: 0, description: 'seconds since this process started' }),
  },
  { description: 'Liveness', examples: [{ status: 'ok', uptimeSeconds: 3600 }] },
);

export const CheckResult = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('failing'), Type.Literal('degraded'), Type.Literal('not_configured')], {
      description:
        'ok; failing (the service is not ready); degraded (a dependency of a side feature is down, e.g. ClickHouse for analytics: play goes on, so the service stays ready); or not_configured (a dependency this deployment does not have, which does not count against readiness)',
    }),
    reason: Type.Optional(Type.String({ description: 'why it fails, what is missing, or a warning' })),
    latencyMs: Type.Optional(Type.Number({ minimum: 0, description: 'round trip of the check, in milliseconds' })),
    ageMs: Type.Optional(Type.Number({ minimum: 0, description: 'for a role (indexer, worker): milliseconds since it last reported a pass' })),
    slot: Type.Optional(Type.Integer({ minimum: 0, description: 'for the chain RPC: the confirmed slot it reports' })),
  },
  { description: 'One readiness check' },
);

export const ReadyResponse = Type.Object(
  {
    status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')], { description: 'ready (HTTP 200) when no check fails, else not_ready (HTTP 503)' }),
    checks: Type.Record(Type.String(), CheckResult, {
      description:
        'each check by name: redis, rpc, clickhouse, indexer, worker, x402FeePayer, anchor (the bet log holds the newest on-chain commit), journal (the analytics shipper found no reused journal sequence), payouts (the keeper pays: the ledger is not behind the journal archive)',
    }),
    error: Type.Optional(
      Type.Object(
        { code: Type.Literal('SERVICE_UNAVAILABLE'), message: Type.String({ description: 'the failing checks, by name' }) },
        { description: 'only when not_ready (HTTP 503, with Retry-After): the error envelope of any other 503' },
      ),
    ),
  },
  {
    description: 'Readiness, with the reason of every check',
    examples: [
      {
        status: 'ready',
        checks: {
          redis: { status: 'ok', latencyMs: 0.4 },
          rpc: { status: 'ok', latencyMs: 2.1, slot: 48213 },
          clickhouse: { status: 'ok', latencyMs: 3.2 },
          indexer: { status: 'ok', ageMs: 420 },
          worker: { status: 'ok', ageMs: 610 },
          x402FeePayer: { status: 'ok', latencyMs: 1.8 },
          anchor: { status: 'ok' },
          journal: { status: 'ok' },
        },
      },
    ],
  },
);

export const MetricsText = Type.String({
  description: 'Prometheus text exposition format 0.0.4',
  examples: [
    '# HELP pfws_bets_committed_total Bets committed (Sweeper: turns), per game\n# TYPE pfws_bets_committed_total counter\npfws_bets_committed_total{game="dice"} 12\n',
  ],
});
