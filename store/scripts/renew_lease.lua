-- Extends a lease only while this holder still has it.
-- KEYS: lease   ARGV: holderId, leaseMs
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
