-- Spends a challenge on a new token, at once. Run again with the same token (a re-send after a lost reply), it
-- answers as the first run did instead of finding its own challenge used.
-- KEYS: challenge, used (the spent challenge's token hash), token, walletChallenges
-- ARGV: nonce, tokenHash, tokenRecord (JSON), tokenTtlMs, usedTtlMs
if redis.call('GET', KEYS[2]) == ARGV[2] then return 1 end
if redis.call('DEL', KEYS[1]) == 0 then return 0 end
redis.call('LREM', KEYS[4], 0, ARGV[1])
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[5])
return 1
