-- Reads, at one instant, what a new commit covers: the log size, the disclosed RNG index, the latest manifest, and a
-- copy of every wallet's liability (the `draft` key, which claim_commit.lua keeps as the commit's snapshot).
-- The liabilities are kept by the scripts that move money (_lib.lua add_liability); the first commit that finds them
-- unmarked (none kept yet, or a hash that went away) builds them from the players. Player keys are derived here: the
-- ledger runs on one Redis primary.
-- KEYS: betLog, wallets, rng, manifest, anchor, liabilities, draft   ARGV: keyPrefix, maxEntries, draftTtlMs
local committed = tonumber(redis.call('HGET', KEYS[5], 'committedSize') or '0')
local size = redis.call('LLEN', KEYS[1])
local count = math.min(size, committed + tonumber(ARGV[2]))
local rng = redis.call('HMGET', KEYS[3], 'chainId', 'head', 'disclosed')
-- The field '' marks a hash that holds every wallet; no wallet is named ''.
if redis.call('HEXISTS', KEYS[6], '') == 0 then
  redis.call('DEL', KEYS[6])
  for _, w in ipairs(redis.call('SMEMBERS', KEYS[2])) do
    local p = redis.call('HMGET', ARGV[1] .. ':{' .. w .. '}:player', 'balance', 'staked', 'pendingWithdrawals')
    redis.call('HINCRBY', KEYS[6], w, p[1] or '0')
    redis.call('HINCRBY', KEYS[6], w, p[2] or '0')
    redis.call('HINCRBY', KEYS[6], w, p[3] or '0')
  end
  redis.call('HSET', KEYS[6], '', 'kept')
end
redis.call('COPY', KEYS[6], KEYS[7], 'REPLACE')
redis.call('PEXPIRE', KEYS[7], ARGV[3])
return {tostring(committed), tostring(count), tostring(size), rng[1] or '', rng[2] or '', rng[3] or '0', redis.call('HGET', KEYS[4], 'latest') or ''}
