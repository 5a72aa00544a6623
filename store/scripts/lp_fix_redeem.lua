-- Values the LP redemption at the head of the queue (strictly in order) at NAV per share, computed in bigint by the
-- caller: the shares leave the supply, their value leaves LP equity and waits as lpPayable until paid, and the
-- wallet's principal shrinks at average cost. A compare-and-set on NAV, supply, exposure and the position.
-- KEYS: house, job, position, redeemQueue, lpOpen, journal, seq
-- ARGV: jobId, nav, supply, exposure, heldShares, heldPrincipal, value, newShares, newPrincipal, principalOut, at, atMs,
--       replayJson (ledger recovery: the archived journal entry, '' otherwise)
replay_journal(ARGV[13], KEYS[6], KEYS[7])
local j = redis.call('HMGET', KEYS[2], 'status', 'shares', 'alias', 'kind')
if j[4] ~= 'redeem' then return {'err', 'not_found'} end
if j[1] ~= 'queued' then return {'dup'} end
if redis.call('LINDEX', KEYS[4], 0) ~= ARGV[1] then return {'err', 'not_head'} end
local nav, exposure = house_nav(KEYS[1])
if nav ~= tonumber(ARGV[2]) or (redis.call('HGET', KEYS[1], 'lpSupply') or '0') ~= ARGV[3] or exposure ~= tonumber(ARGV[4]) then
  return {'err', 'stale'}
end
local p = redis.call('HMGET', KEYS[3], 'shares', 'principal')
if (p[1] or '0') ~= ARGV[5] or (p[2] or '0') ~= ARGV[6] then return {'err', 'stale'} end
if nav <= 0 then return {'err', 'house_closed'} end
local shares, value = j[2], ARGV[7]
redis.call('HINCRBY', KEYS[1], 'lpSupply', neg(shares))
redis.call('HINCRBY', KEYS[1], 'lpPayable', value)
redis.call('HINCRBY', KEYS[1], 'lpNet', neg(value))
redis.call('HINCRBY', KEYS[1], 'lpPrincipal', neg(ARGV[10]))
redis.call('HSET', KEYS[3], 'shares', ARGV[8], 'principal', ARGV[9])
redis.call('HSET', KEYS[2], 'status', 'fixed', 'value', value, 'nav', ARGV[2], 'supplyBefore', ARGV[3], 'principalOut', ARGV[10], 'fixedAt', ARGV[11])
redis.call('LPOP', KEYS[4])
redis.call('ZADD', KEYS[5], ARGV[12], ARGV[1])
journal(KEYS[6], KEYS[7], 'lp_redeem_valued', ARGV[11], cjson.encode({ player = j[3], jobId = ARGV[1], shares = shares, value = value }))
return {'ok'}
