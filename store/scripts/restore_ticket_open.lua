-- Ledger recovery: the writes of open_ticket.lua for a ticket the archive shows opened after the backup, without its
-- checks (they held when it opened): the ticket (nothing banked yet), the wallet's active ticket, the idle index and the
-- stake locked (a ticket reserves no exposure: its turns in flight do), and the archived ticket_opened entry again.
-- KEYS: player, activeTicket, ticket, house, journal, seq, idleTickets, agentWagers, agentWagered
-- Fields (store/script-fields.ts RestoreTicketOpenFields): wallet, ticketId, mode, wager, fullPayout, createdAt, activeAtMs, serverSeedHash, source,
--       agentWindowMs, replay (the ticket_opened entry)
local t = fields()
if redis.call('EXISTS', KEYS[3]) == 1 then return {'dup'} end
local active = redis.call('GET', KEYS[2])
if active then return {'err', 'ticket_active', active} end
replay_journal(t.replay, KEYS[5], KEYS[6])
local nonce = redis.call('HGET', KEYS[1], 'nonce') or '0'
redis.call('SET', KEYS[2], t.ticketId)
redis.call('HSET', KEYS[3], 'wallet', t.wallet, 'status', 'running', 'mode', t.mode, 'wager', t.wager, 'fullPayout', t.fullPayout,
  'banked', '0', 'rowsWon', '0', 'pendingTurn', '', 'createdAt', t.createdAt, 'nonce', nonce,
  'serverSeedHash', t.serverSeedHash, 'turns', '[]', 'source', t.source, 'activeAtMs', t.activeAtMs)
redis.call('ZADD', KEYS[7], t.activeAtMs, t.ticketId)
lock_stake(KEYS[1], KEYS[4], t.wager)
if t.source == 'mcp' and num(t.agentWindowMs) > 0 then agent_record(KEYS[8], KEYS[9], t.activeAtMs, num(t.agentWindowMs), t.ticketId, t.wager) end
journal(KEYS[5], KEYS[6], 'ticket_opened', t.createdAt, '')
return {'ok'}
