-- Fixes an LP deposit's shares (computed in bigint by the caller from the NAV and supply it read) and moves the
-- deposit from lpPending into LP equity, atomically with recording the mint. A compare-and-set on NAV and supply:
-- if either moved since the caller read them, nothing is written and the caller prices again.
-- KEYS: house, job, position, mintQueue, lpOpen, journal, seq
-- Fields (store/script-fields.ts): jobId, navBefore, supply, shares, at, atMs, replay (ledger recovery: the archived journal entry, absent otherwise)
local f = fields()
replay_journal(f.replay, KEYS[6], KEYS[7])
local j = redis.call('HMGET', KEYS[2], 'status', 'amount', 'alias', 'kind')
if j[4] ~= 'mint' then return {'err', 'not_found'} end
if j[1] ~= 'queued' then return {'dup'} end
local nav = house_nav(KEYS[1])
if nav ~= tonumber(f.navBefore) or (redis.call('HGET', KEYS[1], 'lpSupply') or '0') ~= f.supply then return {'err', 'stale'} end
if nav <= 0 then return {'err', 'house_closed'} end
local amount, shares = j[2], f.shares
redis.call('HINCRBY', KEYS[1], 'lpPending', neg(amount))
redis.call('HINCRBY', KEYS[1], 'lpSupply', shares)
redis.call('HINCRBY', KEYS[1], 'lpNet', amount)
redis.call('HINCRBY', KEYS[1], 'lpPrincipal', amount)
redis.call('HINCRBY', KEYS[3], 'shares', shares)
redis.call('HINCRBY', KEYS[3], 'principal', amount)
redis.call('HSET', KEYS[2], 'status', 'fixed', 'shares', shares, 'navBefore', f.navBefore, 'supplyBefore', f.supply, 'fixedAt', f.at)
redis.call('LREM', KEYS[4], 1, f.jobId)
redis.call('ZADD', KEYS[5], f.atMs, f.jobId)
journal(KEYS[6], KEYS[7], 'lp_shares_issued', f.at, cjson.encode({ player = j[3], jobId = f.jobId, amount = amount, shares = shares }))
return {'ok'}
