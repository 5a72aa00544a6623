-- The public archive beside the journal: receipts (a newer version replaces an older one, e.g. when the
-- anchor fields are filled) and the signed journal manifests.

CREATE TABLE IF NOT EXISTS receipts (
  receiptId String,
  game String,
  player String,
  status String,
  anchorStatus String,
  body String,
  createdAt DateTime('UTC'),
  version UInt64
) ENGINE = ReplacingMergeTree(version) ORDER BY receiptId;

CREATE TABLE IF NOT EXISTS manifests (
  manifestHash String,
  version UInt32,
  eventCount UInt64,
  eventRoot String,
  firstEventId String,
  lastEventId String,
  previousManifestHash String,
  operatorPublicKey String,
  createdAt String,
  signature String,
  firstSeq UInt64,
  lastSeq UInt64
) ENGINE = ReplacingMergeTree() ORDER BY manifestHash;
