-- A keeper transaction landed and failed: it moved nothing, and the send rules allow no automatic rebuild, so the
-- job leaves the keeper's work list for an operator. The money stays where the ledger has it.
-- KEYS: job, open, stuck
-- ARGV: id, reason, at
if not redis.call('HGET', KEYS[1], 'status') then return {'err', 'not_found'} end
redis.call('HSET', KEYS[1], 'stuck', ARGV[2], 'stuckAt', ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZADD', KEYS[3], 0, ARGV[1])
return {'ok'}
