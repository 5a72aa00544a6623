-- A draft may be made only on top of the current head, and only one at a time, so the operator never
-- signs two manifests that name the same predecessor.
-- KEYS: manifest   ARGV: latestHash (or ''), draftJson
if redis.call('HEXISTS', KEYS[1], 'draft') == 1 then return 0 end
if (redis.call('HGET', KEYS[1], 'latest') or '') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'draft', ARGV[2])
return 1
