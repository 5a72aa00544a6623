-- Publishes the signed draft as the new head of the manifest chain.
-- KEYS: manifest, manifests, manifestsBySeq
-- Fields (store/script-fields.ts): previousHash (or ''), manifestHash, recordJson, firstSeq, lastEventId, lastSeq
local f = fields()
if (redis.call('HGET', KEYS[1], 'latest') or '') ~= f.previousHash then return 0 end
redis.call('HSET', KEYS[2], f.manifestHash, f.recordJson)
redis.call('ZADD', KEYS[3], f.firstSeq, f.manifestHash)
redis.call('HSET', KEYS[1], 'latest', f.manifestHash, 'lastEventId', f.lastEventId, 'lastSeq', f.lastSeq)
redis.call('HDEL', KEYS[1], 'draft')
return 1
