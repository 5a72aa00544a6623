-- `top_wagers` is filled once per completed hour from `plays` (analytics/top-wagers.ts), no longer by a view on every
-- shipped batch: the view wrote a part per INSERT, and the cost of ingestion is per part. The rows the view wrote (the
-- top 100 of each block) have no hour markers and would sit beside the hours filled anew, so they go: the filler
-- writes the last 24 hours again from `plays`, and until it has, readers read those hours from `plays`.

DROP TABLE IF EXISTS top_wagers_from_journal;

TRUNCATE TABLE top_wagers;
