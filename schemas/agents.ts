// The agent key read (design §9).
import { Type } from 'typebox';
import { Base58Address } from './common.ts';
import * as EX from './examples.ts';

export const AgentKeyResponse = Type.Object(
  {
    sessionPubkey: { ...Base58Address, description: "The wallet's agent session key, held by the service for its MCP agent" },
    authorized: Type.Boolean({ description: 'Whether a setup memo of the wallet authorized it (and no later revoke memo revoked it)' }),
    status: Type.Union([Type.Literal('not_authorized'), Type.Literal('active'), Type.Literal('revoked')], {
      description:
        'not_authorized until a setup transaction (player/setup-transaction with this sessionPubkey) authorizes it; active; revoked after a revoke transaction (a later setup authorizes it again)',
    }),
  },
  { description: "The agent key: authorize it with the wallet's setup transaction before the agent can play", examples: [EX.agentKey] },
);
