// Creating an operator RNG chain (operator/rng-chains.ts): the hashing runs in slices with the event loop free between
// them, so a rollover never stalls its process; the chain is the one the secret defines, stored and loaded back as
// such; and one id is never created twice.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { RngChains } from '../../operator/rng-chains.ts';
import { fromHex } from '../../protocol/encoding.ts';
import { chainCheckpoints, RngChain } from '../../protocol/rng-chain.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'pfws-rng-chains-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('operator RNG chains', () => {
  it('hash a new chain in slices, letting other work run meanwhile', async () => {
    const chains = new RngChains(dir);
    let turns = 0;
    let creating = true;
    const tick = () => {
      if (!creating) return;
      turns++;
      setImmediate(tick);
    };
    setImmediate(tick);
    const chain = await chains.create(1, 100_000);
    creating = false;
    // 100,000 hashes in slices of 8,192: the event loop turned between them (a blocking loop lets it turn once).
    expect(turns).toBeGreaterThanOrEqual(10);

    // The chain is the one its secret defines, and it loads back from its file as the same chain.
    const file = JSON.parse(readFileSync(path.join(dir, 'chain-1.json'), 'utf8')) as { secret: string; head: string };
    const same = new RngChain({ secret: fromHex(file.secret, 32), length: 100_000, checkpointInterval: 1024 });
    expect(chain.headHex).toBe(same.headHex);
    expect(file.head).toBe(same.headHex);
    const loaded = new RngChains(dir).get(1);
    for (const i of [0, 1, 1023, 1024, 50_000, 99_999, 100_000]) {
      expect(chain.valueHex(i)).toBe(same.valueHex(i));
      expect(loaded.valueHex(i)).toBe(same.valueHex(i));
    }
  });

  it('never creates one id twice, also while the first creation is still hashing', async () => {
    const chains = new RngChains(dir);
    const first = chains.create(2, 50_000);
    await expect(chains.create(2, 50_000)).rejects.toThrow(/already exists/);
    const chain = await first;
    await expect(chains.create(2, 16)).rejects.toThrow(/already exists/);
    expect(new RngChains(dir).get(2).headHex).toBe(chain.headHex);
  });

  it('gives the same checkpoints in slices as in one go, and refuses a bad slice', () => {
    const secret = new Uint8Array(32).fill(9);
    const drain = (slice?: number) => {
      const steps = chainCheckpoints(secret, 5000, 64, slice);
      let pauses = 0;
      let step = steps.next();
      while (!step.done) {
        pauses++;
        step = steps.next();
      }
      return { pauses, checkpoints: step.value };
    };
    const whole = drain();
    expect(whole.pauses).toBe(0);
    const sliced = drain(1000);
    expect(sliced.pauses).toBe(5);
    expect(sliced.checkpoints).toEqual(whole.checkpoints);
    expect(whole.checkpoints).toEqual(new RngChain({ secret, length: 5000, checkpointInterval: 64 }).checkpoints());
    expect(() => chainCheckpoints(secret, 5000, 64, 0).next()).toThrow(RangeError);
  });
});
