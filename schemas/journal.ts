// Journal manifests and public journal events.
import { Type } from 'typebox';
import { Base58Address, Base64, Hex32, PageLimit, QueryInt, Timestamp } from './common.ts';

export const Manifest = Type.Object({
  version: Type.Integer({ description: 'format version, 1' }),
  eventCount: Type.Integer({ minimum: 1 }),
  eventRoot: { ...Hex32, description: 'RFC 6962 root of the covered events (leaf = sha256(0x00 ‖ JCS(event)))' },
  firstEventId: Type.String(),
  lastEventId: Type.String(),
  previousManifestHash: { ...Hex32, description: '64 zeros for the first manifest' },
  manifestHash: { ...Hex32, description: 'sha256 of the JCS of the manifest without manifestHash and signature' },
  operatorPublicKey: { ...Base58Address, description: 'the anchor key' },
  signature: { ...Base64, description: 'Ed25519 over UTF-8 "pfws:v1:manifest:<manifestHash>"' },
  createdAt: Timestamp,
});

export const ManifestResponse = Type.Object({ manifest: Manifest });

export const ManifestParams = Type.Object({ manifestHash: Hex32 });

export const EventsQuery = Type.Object({
  afterSeq: Type.Optional(QueryInt({ minimum: 0, default: 0, description: 'return events with a larger seq' })),
  limit: PageLimit,
});

export const JournalEvent = Type.Object({
  id: Type.String({ description: 'stream id' }),
  seq: Type.Integer({ minimum: 1 }),
  type: Type.String(),
  at: Timestamp,
  data: Type.Unknown({ description: 'event payload; never a raw wallet address' }),
});

export const EventsResponse = Type.Object({
  events: Type.Array(JournalEvent),
  lastSeq: Type.Integer({ description: 'highest seq in the journal' }),
});
