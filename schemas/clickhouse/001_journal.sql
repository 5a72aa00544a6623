-- The public journal as shipped from the Redis stream, and one row per settled play derived from it.
-- SQL here runs on chDB 26 and on ClickHouse 18.16: no LowCardinality, DateTime64 or window functions,
-- and a materialized view never selects an alias equal to a column name of its source table.

-- One row per journal event. The shipper fills the play* columns for settled plays (isPlay = 1), so a
-- batch is ONE insert: the views below derive everything else from the same block.
CREATE TABLE IF NOT EXISTS journal_events (
  seq UInt64,
  id String,
  type String,
  at String,
  atMs Int64,
  eventGame String,
  data String,
  isPlay UInt8,
  playReceiptId String,
  playGame String,
  playPlayer String,
  playSource String,
  playBet Int64,
  playPayout Int64,
  playWon UInt8
) ENGINE = MergeTree() ORDER BY seq;

-- Money is Int64 micro-USDC; player is the public alias, never a wallet address.
CREATE TABLE IF NOT EXISTS plays (
  seq UInt64,
  receiptId String,
  game String,
  player String,
  source String,
  betAmount Int64,
  payout Int64,
  won UInt8,
  settledAt DateTime('UTC'),
  settledAtMs Int64
) ENGINE = MergeTree() ORDER BY (settledAtMs, seq);

CREATE MATERIALIZED VIEW IF NOT EXISTS plays_from_journal TO plays AS
SELECT
  seq,
  playReceiptId AS receiptId,
  playGame AS game,
  playPlayer AS player,
  playSource AS source,
  playBet AS betAmount,
  playPayout AS payout,
  playWon AS won,
  toDateTime(intDiv(atMs, 1000), 'UTC') AS settledAt,
  atMs AS settledAtMs
FROM journal_events
WHERE isPlay = 1;
