-- Spends a sign-in challenge's nonce on a new token, at once: the nonce joins the used set (one key per nonce,
-- expiring after its challenge) and the token is stored. Run again with the same token (a re-send after a lost
-- reply), it answers as the first run did instead of finding its own nonce used.
-- KEYS: used (the spent nonce: the hash of the token it was spent on), token
-- ARGV: tokenHash, tokenRecord (JSON), tokenTtlMs, usedTtlMs
local used = redis.call('GET', KEYS[1])
if used == ARGV[1] then return 1 end
if used then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[4])
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1
