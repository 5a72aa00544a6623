// Commits operator RNG chain heads on-chain (memo signed by the anchor key alone) and rolls chains over.
import { memoInstruction } from '../chain/memo.ts';
import type { Services } from '../services.ts';
import { sendAndConfirm } from '../chain/send.ts';
import { rngHeadMemo } from '../protocol/memo.ts';

const SET_CURRENT = `if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'chainId', ARGV[1], 'head', ARGV[2], 'length', ARGV[3], 'next', '1', 'disclosed', '0', 'headSignature', ARGV[4])
return 1`;
const SET_NEXT = `if redis.call('HGET', KEYS[1], 'chainId') ~= ARGV[5] or redis.call('HEXISTS', KEYS[1], 'nextChainId') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'nextChainId', ARGV[1], 'nextHead', ARGV[2], 'nextLength', ARGV[3], 'nextHeadSignature', ARGV[4])
return 1`;

async function commitNewChain(services: Services): Promise<{ chainId: number; head: string; length: number; signature: string }> {
  const { rngChains, operator, rpc, config } = services;
  // A fresh id every time: an index of an earlier chain is never handed out again, even if Redis lost the cursor.
  const chainId = Math.max(0, ...rngChains.ids()) + 1;
  const chain = rngChains.create(chainId, config.RNG_CHAIN_LENGTH);
  const memo = rngHeadMemo(chainId, chain.headHex);
  const signature = await sendAndConfirm(rpc, operator.anchor.signer, [memoInstruction(memo, [operator.anchor.signer])]);
  services.logger.info({ chainId, head: chain.headHex, signature }, 'rng: chain head committed on-chain');
  return { chainId, head: chain.headHex, length: chain.length, signature };
}

/** Makes sure a committed chain is current, and that the next one is committed before it runs out. */
export async function ensureRngChains(services: Services): Promise<void> {
  const key = services.keys.rng();
  const cursor = await services.redis.hmget(key, 'chainId', 'next', 'length', 'nextChainId');
  if (!cursor[0]) {
    const c = await commitNewChain(services);
    await services.redis.eval(SET_CURRENT, 1, key, c.chainId, c.head, c.length, c.signature);
    return;
  }
  const remaining = Number(cursor[2]) - Number(cursor[1]) + 1;
  if (!cursor[3] && remaining <= services.config.RNG_ROLLOVER_MARGIN) {
    const c = await commitNewChain(services);
    await services.redis.eval(SET_NEXT, 1, key, c.chainId, c.head, c.length, c.signature, cursor[0]);
  }
}
