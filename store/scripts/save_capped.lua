-- Stores a per-wallet record (a prepared bet) and keeps at most `cap` of that kind per wallet (_lib.lua save_capped).
-- KEYS: record, walletList
-- ARGV: id, record (JSON), ttlMs, cap, recordKeyPrefix
save_capped(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5])
return 1
