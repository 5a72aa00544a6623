-- Claims the pending-commit slot: only one commit may extend a given committed size, and one at a time.
-- Stores the signed commit and its liability snapshot before anything is sent.
-- KEYS: anchor, anchorPending, snapshot   ARGV: fromSize, pendingJson, wallet1, liability1, ...
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'committedSize') or '0') ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[2], 'json', ARGV[2])
redis.call('DEL', KEYS[3])
for i = 3, #ARGV, 2 do redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
return 1
