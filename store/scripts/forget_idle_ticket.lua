-- Drops a ticket from the idle index when it cannot be closed as idle: it ended, or a turn is in flight (whose
-- settlement puts it back). Checked and dropped at once, so a turn settling meanwhile is never lost from the index.
-- KEYS: ticket, idleTickets
-- ARGV: ticketId
local t = redis.call('HMGET', KEYS[1], 'status', 'pendingTurn')
if t[1] ~= 'running' or (t[2] and t[2] ~= '') then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 1
end
return 0
