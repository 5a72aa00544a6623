-- Claims the pending-commit slot: only one commit may extend a given committed size, and one at a time.
-- Stores the signed commit and its liability snapshot before anything is sent.
-- KEYS: anchor, anchorPending, snapshot   ARGV: fromSize, pendingJson, wallet1, liability1, ...
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
if tonumber(redis.call('HGET', KEYS[1], 'committedSize') or '0') ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[2], 'json', ARGV[2])
redis.call('DEL', KEYS[3])
-- Many fields a call: a call a wallet held Redis about 1.7 times as long (100,000 wallets: 276-286 ms against
-- 136-191). unpack stays within Lua's stack at 2,000 values.
for i = 3, #ARGV, 2000 do redis.call('HSET', KEYS[3], unpack(ARGV, i, math.min(i + 1999, #ARGV))) end
return 1
