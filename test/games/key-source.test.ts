// The REST key check (BetLifecycle.checkKeySource): the wallet's agent key is refused on REST, and a key found not to
// be it skips the read from then on, which stays right when the agent key is made later (it is fresh random bytes).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { BetLifecycle, type LifecycleDeps } from '../../games/lifecycle.ts';
import { PfwsError } from '../../protocol/errors.ts';
import { randomAddress } from '../helpers/random-ids.ts';

function lifecycle() {
  const agent: { key: string | null; reads: number } = { key: null, reads: 0 };
  const deps = {
    agentKeyOf: async () => {
      agent.reads++;
      return agent.key;
    },
  } as unknown as LifecycleDeps;
  return { life: new BetLifecycle(deps), agent };
}

const key = () => randomBytes(32).toString('hex');
const w1 = randomAddress();
const w2 = randomAddress();

describe('the REST key check', () => {
  it('reads the agent key once per (wallet, key) that is not it, and still refuses the agent key made later', async () => {
    const { life, agent } = lifecycle();
    const own = key();
    await life.checkKeySource(w1, own, 'api');
    await life.checkKeySource(w1, own, 'api');
    expect(agent.reads).toBe(1);
    agent.key = key();
    await life.checkKeySource(w1, own, 'api');
    expect(agent.reads).toBe(1);
    const refused = await life.checkKeySource(w1, agent.key, 'api').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PfwsError);
    expect((refused as PfwsError).details).toMatchObject({ reason: 'agent_key_rest_forbidden' });
    // Refused every time: a refusal is never remembered as a pass.
    await expect(life.checkKeySource(w1, agent.key, 'api')).rejects.toBeInstanceOf(PfwsError);
    expect(agent.reads).toBe(3);
    // The pair is per wallet: another wallet naming the same key is read for itself.
    await life.checkKeySource(w2, own, 'api');
    expect(agent.reads).toBe(4);
  });

  it('does not check MCP plays or payloads without a key', async () => {
    const { life, agent } = lifecycle();
    agent.key = key();
    await life.checkKeySource(w1, agent.key, 'mcp');
    await life.checkKeySource(w1, undefined, 'api');
    expect(agent.reads).toBe(0);
  });
});
