-- Pre-aggregated tables for rankings, stats and activity (design §8). Each view writes every play into
-- the four slices (game | '*', source | '*'), so a query reads exactly one slice. Unmerged parts hold
-- duplicate keys: always read with sum() … GROUP BY.
-- Every view reads journal_events itself: ClickHouse 18.16 does not cascade a view into a table that
-- has views of its own.

CREATE TABLE IF NOT EXISTS actor_totals (
  game String,
  source String,
  player String,
  plays UInt64,
  wins UInt64,
  wagered Int64,
  paidOut Int64
) ENGINE = SummingMergeTree((plays, wins, wagered, paidOut)) ORDER BY (game, source, player);

CREATE MATERIALIZED VIEW IF NOT EXISTS actor_totals_from_journal TO actor_totals AS
SELECT
  slice.1 AS game,
  slice.2 AS source,
  playPlayer AS player,
  count() AS plays,
  sum(toUInt64(playWon)) AS wins,
  sum(playBet) AS wagered,
  sum(playPayout) AS paidOut
FROM journal_events
ARRAY JOIN [(playGame, playSource), (playGame, '*'), ('*', playSource), ('*', '*')] AS slice
WHERE isPlay = 1
GROUP BY game, source, player;

CREATE TABLE IF NOT EXISTS hourly_totals (
  game String,
  source String,
  hour DateTime('UTC'),
  plays UInt64,
  wins UInt64,
  wagered Int64,
  paidOut Int64
) ENGINE = SummingMergeTree((plays, wins, wagered, paidOut)) ORDER BY (game, source, hour);

CREATE MATERIALIZED VIEW IF NOT EXISTS hourly_totals_from_journal TO hourly_totals AS
SELECT
  slice.1 AS game,
  slice.2 AS source,
  toStartOfHour(toDateTime(intDiv(atMs, 1000), 'UTC')) AS hour,
  count() AS plays,
  sum(toUInt64(playWon)) AS wins,
  sum(playBet) AS wagered,
  sum(playPayout) AS paidOut
FROM journal_events
ARRAY JOIN [(playGame, playSource), (playGame, '*'), ('*', playSource), ('*', '*')] AS slice
WHERE isPlay = 1
GROUP BY game, source, hour;

-- The largest bets: of each inserted block, only the 100 largest per (game slice, hour) are kept, which
-- is exact for any top-100 over whole hours. `slice` is the game or '*'; `game` is the play's own.
-- Partitioned by day, so old days are dropped and the last days can be rebuilt from plays.
CREATE TABLE IF NOT EXISTS top_wagers (
  slice String,
  hour DateTime('UTC'),
  game String,
  seq UInt64,
  receiptId String,
  player String,
  source String,
  betAmount Int64,
  payout Int64,
  won UInt8,
  settledAtMs Int64
) ENGINE = MergeTree() PARTITION BY toYYYYMMDD(hour) ORDER BY (slice, hour, betAmount);

CREATE MATERIALIZED VIEW IF NOT EXISTS top_wagers_from_journal TO top_wagers AS
SELECT
  gameSlice AS slice,
  toStartOfHour(toDateTime(intDiv(atMs, 1000), 'UTC')) AS hour,
  playGame AS game,
  seq,
  playReceiptId AS receiptId,
  playPlayer AS player,
  playSource AS source,
  playBet AS betAmount,
  playPayout AS payout,
  playWon AS won,
  atMs AS settledAtMs
FROM journal_events
ARRAY JOIN [playGame, '*'] AS gameSlice
WHERE isPlay = 1
ORDER BY betAmount DESC, seq DESC
LIMIT 100 BY slice, hour;
