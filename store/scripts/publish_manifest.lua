-- Publishes the signed draft as the new head of the manifest chain.
-- KEYS: manifest, manifests, manifestsBySeq   ARGV: previousHash (or ''), manifestHash, recordJson, firstSeq, lastEventId, lastSeq
if (redis.call('HGET', KEYS[1], 'latest') or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[2])
redis.call('HSET', KEYS[1], 'latest', ARGV[2], 'lastEventId', ARGV[5], 'lastSeq', ARGV[6])
redis.call('HDEL', KEYS[1], 'draft')
return 1
