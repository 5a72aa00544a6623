// The agent session keys at rest: one per wallet even when first asked for twice at once, sealed so that the record
// opens only under this service's key and only for its own wallet, and signing what the lifecycle verifies.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentKeys } from '../../agents/agent-keys.ts';
import { setCryptoBackend } from '../../protocol/crypto.ts';
import { nodeBackend } from '../../protocol/crypto-node.ts';
import { utf8 } from '../../protocol/encoding.ts';
import { verifyBase64Signature, verifySessionSignature } from '../../protocol/signatures.ts';
import { AgentStore } from '../../store/agents.ts';
import { Keys } from '../../store/keys.ts';
import { createRedis, type Redis } from '../../store/redis.ts';
import { defineScripts } from '../../store/scripts.ts';
import type { SessionKeyState } from '../../store/ledger.ts';
import type { Address } from '../../protocol/address.ts';

let redis: Redis;
let keys: Keys;
let store: AgentStore;
const sessionKeys = new Map<string, SessionKeyState>();
const ledger = { sessionKey: async (wallet: string, pubkey: string) => sessionKeys.get(`${wallet}:${pubkey}`) ?? null };
const wallet = () => randomBytes(16).toString('hex') as Address;

beforeAll(() => {
  setCryptoBackend(nodeBackend);
  redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  keys = new Keys(`test-agent-keys-${randomBytes(4).toString('hex')}`);
  store = new AgentStore(redis, keys, defineScripts(redis));
});

afterAll(async () => {
  const left = await redis.keys(`${keys.prefix}:*`);
  if (left.length) await redis.del(...left);
  await redis.quit();
});

describe('agent keys', () => {
  it('gives a wallet one key, even to concurrent first calls and across service instances', async () => {
    const sealingKey = randomBytes(32);
    const w = wallet();
    const first = await Promise.all(Array.from({ length: 8 }, () => new AgentKeys({ store, ledger, sealingKey }).key(w)));
    expect(new Set(first.map((k) => k.sessionPubkey)).size).toBe(1);
    expect((await new AgentKeys({ store, ledger, sealingKey }).key(w)).sessionPubkey).toBe(first[0]!.sessionPubkey);
    expect((await new AgentKeys({ store, ledger, sealingKey }).key(wallet())).sessionPubkey).not.toBe(first[0]!.sessionPubkey);
  });

  it('signs the commit hash and the reveal message as a session key must', async () => {
    const key = await new AgentKeys({ store, ledger, sealingKey: randomBytes(32) }).key(wallet());
    const hash = randomBytes(32).toString('hex');
    expect(verifySessionSignature(hash, key.signHash(hash), key.sessionPubkey)).toBe(true);
    const message = `pfws:v1:reveal:${hash}:${'ab'.repeat(32)}`;
    expect(verifyBase64Signature(key.signText(message), utf8(message), key.sessionPubkey)).toBe(true);
  });

  it('opens a sealed record only under the same sealing key, and only for its own wallet', async () => {
    const sealingKey = randomBytes(32);
    const a = wallet();
    const b = wallet();
    await new AgentKeys({ store, ledger, sealingKey }).key(a);
    const sealed = (await store.sealedKey(a))!;
    await expect(new AgentKeys({ store, ledger, sealingKey: randomBytes(32) }).key(a)).rejects.toThrow(/unable to authenticate|auth/i);
    // The same record planted under another wallet does not open there.
    await redis.set(keys.agentKey(b), sealed);
    await expect(new AgentKeys({ store, ledger, sealingKey }).key(b)).rejects.toThrow(/unable to authenticate|auth/i);
    // Nor does one whose ciphertext was altered.
    const altered = JSON.parse(sealed) as { seed: string };
    altered.seed = Buffer.from(Buffer.from(altered.seed, 'base64').map((x, i) => (i === 0 ? x ^ 1 : x))).toString('base64');
    const c = wallet();
    await redis.set(keys.agentKey(c), JSON.stringify({ ...JSON.parse(sealed), seed: altered.seed }));
    await expect(new AgentKeys({ store, ledger, sealingKey }).key(c)).rejects.toThrow(/unable to authenticate|auth/i);
  });

  it('reports the authorization the ledger holds for the key', async () => {
    const agentKeys = new AgentKeys({ store, ledger, sealingKey: randomBytes(32) });
    const w = wallet();
    const status = await agentKeys.status(w);
    expect(status).toEqual({ sessionPubkey: expect.any(String), authorized: false, status: 'not_authorized' });
    sessionKeys.set(`${w}:${status.sessionPubkey}`, { status: 'active', slot: 1, signature: 's', at: '' });
    expect(await agentKeys.status(w)).toMatchObject({ authorized: true, status: 'active' });
    sessionKeys.set(`${w}:${status.sessionPubkey}`, { status: 'revoked', slot: 2, signature: 's', at: '' });
    expect(await agentKeys.status(w)).toMatchObject({ authorized: false, status: 'revoked' });
  });

  it('refuses to make or open keys on a host without the sealing key', async () => {
    await expect(new AgentKeys({ store, ledger, sealingKey: null }).key(wallet())).rejects.toThrow(/not on this host/);
  });
});
