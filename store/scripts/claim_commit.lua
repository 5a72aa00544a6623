-- Claims the pending-commit slot: only one commit may extend a given committed size, and one at a time.
-- Stores the signed commit and keeps its liability snapshot (the draft anchor_snapshot.lua copied) before anything is
-- sent.
-- KEYS: anchor, anchorPending, snapshot, draft   ARGV: fromSize, pendingJson
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'committedSize') or '0') ~= tonumber(ARGV[1]) then return 0 end
if redis.call('EXISTS', KEYS[4]) == 0 then return redis.error_reply('the liability snapshot of this commit expired') end
redis.call('HSET', KEYS[2], 'json', ARGV[2])
redis.call('RENAME', KEYS[4], KEYS[3])
redis.call('PERSIST', KEYS[3])
redis.call('HDEL', KEYS[3], '')
return 1
