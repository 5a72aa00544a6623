-- Queues the next committed RNG chain behind the current one, once per current chain.
-- KEYS: rng   ARGV: chainId, head, length, headSignature, currentChainId
if redis.call('HGET', KEYS[1], 'chainId') ~= ARGV[5] or redis.call('HEXISTS', KEYS[1], 'nextChainId') == 1 then return 0 end
redis.call('HSET', KEYS[1], 'nextChainId', ARGV[1], 'nextHead', ARGV[2], 'nextLength', ARGV[3], 'nextHeadSignature', ARGV[4])
return 1
