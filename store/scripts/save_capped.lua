-- Stores a per-wallet record (a prepared bet) and keeps at most `cap` of that kind per wallet:
-- past the cap the oldest is void at once (issue 16). The wallet's list is in creation order and never longer than
-- the cap; a record saved again moves to the end.
-- KEYS: record, walletList
-- ARGV: id, record (JSON), ttlMs, cap, recordKeyPrefix
local cap = tonumber(ARGV[4])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('LREM', KEYS[2], 0, ARGV[1])
local length = redis.call('RPUSH', KEYS[2], ARGV[1])
while length > cap do
  redis.call('DEL', ARGV[5] .. redis.call('LPOP', KEYS[2]))
  length = length - 1
end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
