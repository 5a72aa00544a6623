-- Makes a committed RNG chain the current one, once: a cursor that exists is never reset.
-- KEYS: rng   ARGV: chainId, head, length, headSignature
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'chainId', ARGV[1], 'head', ARGV[2], 'length', ARGV[3], 'next', '1', 'disclosed', '0', 'headSignature', ARGV[4])
return 1
