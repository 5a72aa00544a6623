-- Replaces the stored transaction of the pending commit (re-signed after its blockhash expired).
-- KEYS: anchorPending   ARGV: entryCount, pendingJson
local cur = redis.call('HGET', KEYS[1], 'json')
if not cur or cjson.decode(cur).entryCount ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'json', ARGV[2])
return 1
