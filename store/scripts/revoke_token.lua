-- Revokes a bearer token: its record goes, and every API process hears of it on the revocation channel, where it
-- drops its cached copy. Published even when the record is already gone, so a re-sent revocation reaches them too.
-- KEYS: token
-- ARGV: channel, tokenHash
local existed = redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[1], ARGV[2])
return existed
