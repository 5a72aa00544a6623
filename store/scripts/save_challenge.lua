-- Stores a sign-in challenge and keeps at most `cap` outstanding per wallet: past the cap the oldest is void.
-- KEYS: challenge, walletChallenges
-- ARGV: nonce, record (JSON), ttlMs, cap, challengeKeyPrefix
local cap = tonumber(ARGV[4])
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
redis.call('RPUSH', KEYS[2], ARGV[1])
while redis.call('LLEN', KEYS[2]) > cap do
  redis.call('DEL', ARGV[5] .. redis.call('LPOP', KEYS[2]))
end
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
