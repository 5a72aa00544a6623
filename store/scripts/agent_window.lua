-- Reads an agent's rolling window: the stakes still in it (expired ones are dropped) and the oldest one's time.
-- KEYS: agentWagers, agentWagered
-- ARGV: nowMs, windowMs
local wagered = agent_wagered(KEYS[1], KEYS[2], num(ARGV[1]), num(ARGV[2]))
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return {string.format('%.0f', wagered), oldest[2] or ''}
