-- Reads, at one instant, what a new commit covers: the log size, the disclosed RNG index, the latest
-- manifest and every wallet's liability. Player keys are derived here: the ledger runs on one Redis primary.
-- KEYS: betLog, wallets, rng, manifest, anchor   ARGV: keyPrefix, maxEntries
local committed = tonumber(redis.call('HGET', KEYS[5], 'committedSize') or '0')
local size = redis.call('LLEN', KEYS[1])
local count = math.min(size, committed + tonumber(ARGV[2]))
local rng = redis.call('HMGET', KEYS[3], 'chainId', 'head', 'disclosed')
local out = {tostring(committed), tostring(count), tostring(size), rng[1] or '', rng[2] or '', rng[3] or '0', redis.call('HGET', KEYS[4], 'latest') or ''}
for _, w in ipairs(redis.call('SMEMBERS', KEYS[2])) do
  local p = redis.call('HMGET', ARGV[1] .. ':{' .. w .. '}:player', 'balance', 'staked', 'pendingWithdrawals')
  out[#out + 1] = w
  out[#out + 1] = p[1] or '0'
  out[#out + 1] = p[2] or '0'
  out[#out + 1] = p[3] or '0'
end
return out
