-- Drops the Redis records of settled plays whose bet-log entries are `[from, to)`: their receipts, bets, recovery
-- seeds and ended tickets, which the archive, the tiles and the receipt bundles now hold (store/retention.ts). Only
-- when the cursor still stands at `from`, so two pruners never drop past what each one checked. Of each bet it keeps
-- the session key that committed it, for the session-key pointer a verifier asks for (`<wallet>:<sessionPubkey>`).
-- KEYS: retention, betSessionKeys, then each bet (in the order of ARGV's hashes), then the other records to drop
-- ARGV: from, to, then the hash of each bet
local at = tonumber(redis.call('HGET', KEYS[1], 'pruned') or '0')
if at ~= tonumber(ARGV[1]) then return -1 end
local pointers = {}
for i = 3, #ARGV do
  local b = redis.call('HMGET', KEYS[i], 'wallet', 'sessionPubkey')
  if b[1] and b[2] then
    pointers[#pointers + 1] = ARGV[i]
    pointers[#pointers + 1] = b[1] .. ':' .. b[2]
  end
end
for i = 1, #pointers, 512 do
  redis.call('HSET', KEYS[2], unpack(pointers, i, math.min(i + 511, #pointers)))
end
for i = 3, #KEYS, 256 do
  redis.call('UNLINK', unpack(KEYS, i, math.min(i + 255, #KEYS)))
end
redis.call('HSET', KEYS[1], 'pruned', ARGV[2])
return #KEYS - 2
