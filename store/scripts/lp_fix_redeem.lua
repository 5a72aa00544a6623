-- Values the LP redemption at the head of the queue (strictly in order) at NAV per share, computed in bigint by the
-- caller: the shares leave the supply, their value leaves LP equity and waits as lpPayable until paid, and the
-- wallet's principal shrinks at average cost. A compare-and-set on NAV, supply, exposure and the position.
-- KEYS: house, job, position, redeemQueue, lpOpen, journal, seq
-- Fields (store/script-fields.ts): jobId, nav, supply, exposure, heldShares, heldPrincipal, value, newShares, newPrincipal, principalOut, at, atMs,
--       replay (ledger recovery: the archived journal entry, absent otherwise)
local f = fields()
replay_journal(f.replay, KEYS[6], KEYS[7])
local j = redis.call('HMGET', KEYS[2], 'status', 'shares', 'alias', 'kind')
if j[4] ~= 'redeem' then return {'err', 'not_found'} end
if j[1] ~= 'queued' then return {'dup'} end
if redis.call('LINDEX', KEYS[4], 0) ~= f.jobId then return {'err', 'not_head'} end
local nav, exposure = house_nav(KEYS[1])
if nav ~= tonumber(f.nav) or (redis.call('HGET', KEYS[1], 'lpSupply') or '0') ~= f.supply or exposure ~= tonumber(f.exposure) then
  return {'err', 'stale'}
end
local p = redis.call('HMGET', KEYS[3], 'shares', 'principal')
if (p[1] or '0') ~= f.heldShares or (p[2] or '0') ~= f.heldPrincipal then return {'err', 'stale'} end
if nav <= 0 then return {'err', 'house_closed'} end
local shares, value = j[2], f.value
redis.call('HINCRBY', KEYS[1], 'lpSupply', neg(shares))
redis.call('HINCRBY', KEYS[1], 'lpPayable', value)
redis.call('HINCRBY', KEYS[1], 'lpNet', neg(value))
redis.call('HINCRBY', KEYS[1], 'lpPrincipal', neg(f.principalOut))
redis.call('HSET', KEYS[3], 'shares', f.newShares, 'principal', f.newPrincipal)
redis.call('HSET', KEYS[2], 'status', 'fixed', 'value', value, 'nav', f.nav, 'supplyBefore', f.supply, 'principalOut', f.principalOut, 'fixedAt', f.at)
redis.call('LPOP', KEYS[4])
redis.call('ZADD', KEYS[5], f.atMs, f.jobId)
journal(KEYS[6], KEYS[7], 'lp_redeem_valued', f.at, cjson.encode({ player = j[3], jobId = f.jobId, shares = shares, value = value }))
return {'ok'}
