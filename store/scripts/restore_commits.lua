-- Ledger recovery: the bet-log commits found on-chain that the restored ledger has no record of, checked against the
-- rebuilt log by the caller. Adds each record once per size, moves the committed size up to the newest, and drops a
-- pending commit that a recorded one covers (it landed, or a larger one did).
-- KEYS: anchor, anchorPending, anchorCommits   ARGV: entryCount1, recordJson1, ...
local top = tonumber(redis.call('HGET', KEYS[1], 'committedSize') or '0')
local added = 0
for i = 1, #ARGV, 2 do
  local size = tonumber(ARGV[i])
  if #redis.call('ZRANGEBYSCORE', KEYS[3], size, size) == 0 then
    redis.call('ZADD', KEYS[3], size, ARGV[i + 1])
    added = added + 1
  end
  if size > top then top = size end
end
redis.call('HSET', KEYS[1], 'committedSize', top)
local pending = redis.call('HGET', KEYS[2], 'json')
if pending and tonumber(cjson.decode(pending).entryCount) <= top then redis.call('DEL', KEYS[2]) end
return added
