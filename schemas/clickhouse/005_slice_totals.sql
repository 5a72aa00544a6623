-- The per-player and per-hour totals in ONE table fed by ONE view. Every INSERT writes a new part in each table a
-- view feeds, and that fixed cost per part (files created, then merged), not the rows, is most of what ingestion
-- costs; two targets were two parts per shipped batch, this is one. `kind` is 'actor' (per game slice, source slice
-- and player; `hour` is 0) or 'hour' (per game slice, source slice and UTC hour; `player` is '').
-- `actor_totals` and `hourly_totals` stay, as plain views over it, so SQL written against them still works.
--
-- Each statement may run again after a cut (migrations.ts runs the file from its start): the old rows are copied
-- only while the new table is empty, the old names are views again before anything reads them, and reconcile()
-- (run before shipping resumes) rebuilds the totals from journal_events if a cut copy left them short.

CREATE TABLE IF NOT EXISTS slice_totals (
  kind String,
  game String,
  source String,
  player String,
  hour DateTime('UTC'),
  plays UInt64,
  wins UInt64,
  wagered Int64,
  paidOut Int64
) ENGINE = SummingMergeTree((plays, wins, wagered, paidOut)) ORDER BY (kind, game, source, player, hour);

DROP TABLE IF EXISTS actor_totals_from_journal;

DROP TABLE IF EXISTS hourly_totals_from_journal;

-- Only when a cut run already dropped the old table: the copy below then reads the new table and copies nothing.
CREATE VIEW IF NOT EXISTS actor_totals AS
SELECT game, source, player, plays, wins, wagered, paidOut FROM slice_totals WHERE kind = 'actor';

CREATE VIEW IF NOT EXISTS hourly_totals AS
SELECT game, source, hour, plays, wins, wagered, paidOut FROM slice_totals WHERE kind = 'hour';

INSERT INTO slice_totals (kind, game, source, player, hour, plays, wins, wagered, paidOut)
SELECT 'actor', game, source, player, toDateTime(0, 'UTC'), sum(plays), sum(wins), sum(wagered), sum(paidOut)
FROM actor_totals
WHERE (SELECT count() FROM slice_totals WHERE kind = 'actor') = 0
GROUP BY game, source, player;

INSERT INTO slice_totals (kind, game, source, player, hour, plays, wins, wagered, paidOut)
SELECT 'hour', game, source, '', hour, sum(plays), sum(wins), sum(wagered), sum(paidOut)
FROM hourly_totals
WHERE (SELECT count() FROM slice_totals WHERE kind = 'hour') = 0
GROUP BY game, source, hour;

DROP TABLE IF EXISTS actor_totals;

DROP TABLE IF EXISTS hourly_totals;

CREATE VIEW IF NOT EXISTS actor_totals AS
SELECT game, source, player, plays, wins, wagered, paidOut FROM slice_totals WHERE kind = 'actor';

CREATE VIEW IF NOT EXISTS hourly_totals AS
SELECT game, source, hour, plays, wins, wagered, paidOut FROM slice_totals WHERE kind = 'hour';

-- The aliases differ from journal_events' columns (ClickHouse 18.16 cannot resolve an ARRAY JOIN alias that
-- shadows one), and `k.5` is a DateTime in both halves so the array has one type.
CREATE MATERIALIZED VIEW IF NOT EXISTS slice_totals_from_journal TO slice_totals AS
SELECT
  k.1 AS kind,
  k.2 AS game,
  k.3 AS source,
  k.4 AS player,
  k.5 AS hour,
  count() AS plays,
  sum(toUInt64(playWon)) AS wins,
  sum(playBet) AS wagered,
  sum(playPayout) AS paidOut
FROM journal_events
ARRAY JOIN [
  ('actor', playGame, playSource, playPlayer, toDateTime(0, 'UTC')),
  ('actor', playGame, '*', playPlayer, toDateTime(0, 'UTC')),
  ('actor', '*', playSource, playPlayer, toDateTime(0, 'UTC')),
  ('actor', '*', '*', playPlayer, toDateTime(0, 'UTC')),
  ('hour', playGame, playSource, '', toStartOfHour(toDateTime(intDiv(atMs, 1000), 'UTC'))),
  ('hour', playGame, '*', '', toStartOfHour(toDateTime(intDiv(atMs, 1000), 'UTC'))),
  ('hour', '*', playSource, '', toStartOfHour(toDateTime(intDiv(atMs, 1000), 'UTC'))),
  ('hour', '*', '*', '', toStartOfHour(toDateTime(intDiv(atMs, 1000), 'UTC')))
] AS k
WHERE isPlay = 1
GROUP BY kind, game, source, player, hour;
