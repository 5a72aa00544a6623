-- Confirmation: the commit joins the record and the pending slot is freed, in one step.
-- KEYS: anchor, anchorPending, anchorCommits   ARGV: entryCount, commitJson
local cur = redis.call('HGET', KEYS[2], 'json')
if not cur or cjson.decode(cur).entryCount ~= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[3], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[1], 'committedSize', ARGV[1], 'latestEpoch', ARGV[1])
redis.call('DEL', KEYS[2])
return 1
