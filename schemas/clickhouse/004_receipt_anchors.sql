-- A receipt is archived once, as it settled (`receipts`); when its anchor lands, only the anchor is archived, as a
-- small row of its own here, instead of the whole receipt again. The anchored receipt is the body with this anchor
-- in place of its pending one: join the two tables on receiptId.

CREATE TABLE IF NOT EXISTS receipt_anchors (
  receiptId String,
  anchorStatus String,
  anchor String
) ENGINE = ReplacingMergeTree() ORDER BY receiptId;
