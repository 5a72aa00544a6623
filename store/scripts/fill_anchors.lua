-- Fills one batch of receipts' anchors and moves the fill cursor at once, so a crash between batches resumes exactly
-- where it stopped. One script rather than a MULTI of one HSET per receipt: the worker builds one command, not a
-- transaction of up to 500 whose commands and replies outlived its young generation (bench/HISTORY.md).
-- KEYS: anchor, then each receipt
-- ARGV: the cursor after the batch, then each receipt's anchor JSON
for i = 2, #KEYS do redis.call('HSET', KEYS[i], 'anchor', ARGV[i]) end
redis.call('HSET', KEYS[1], 'filled', ARGV[1])
return #KEYS - 1
