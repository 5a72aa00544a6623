// Journal manifests and public journal events.
import { Type } from 'typebox';
import { Base58Address, Base64, documented, Hex32, PageLimit, QueryInt, Timestamp } from './common.ts';
import * as EX from './examples.ts';

export const Manifest = Type.Object(
  {
    version: Type.Integer({ description: 'format version, 1' }),
    eventCount: Type.Integer({ minimum: 1, description: 'events covered' }),
    eventRoot: { ...Hex32, description: 'RFC 6962 root of the covered events (leaf = sha256(0x00 ‖ JCS(event)))' },
    firstEventId: Type.String({ description: 'id of the first covered event' }),
    lastEventId: Type.String({ description: 'id of the last covered event' }),
    previousManifestHash: { ...Hex32, description: '64 zeros for the first manifest' },
    manifestHash: { ...Hex32, description: 'sha256 of the JCS of the manifest without manifestHash and signature' },
    operatorPublicKey: { ...Base58Address, description: 'the anchor key' },
    signature: { ...Base64, description: 'Ed25519 over UTF-8 "pfws:v1:manifest:<manifestHash>"' },
    createdAt: { ...Timestamp, description: 'when it was signed' },
  },
  { description: 'a signed journal manifest' },
);

export const ManifestResponse = Type.Object({ manifest: Manifest }, { description: 'The manifest', examples: [EX.manifest] });

export const ManifestParams = Type.Object({
  manifestHash: { ...Hex32, description: 'a manifestHash (64 lowercase hex)', examples: [EX.manifest.manifest.manifestHash] },
});

export const EventsQuery = Type.Object({
  afterSeq: Type.Optional(QueryInt({ minimum: 0, default: 0, description: 'return events with a larger seq', examples: [0] })),
  limit: PageLimit,
});

const EventValue = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()], { description: 'a fact of the event' });
const EVENT_DATA = 'event payload, flat; never a raw wallet address (players appear as their alias)';

export const JournalEvent = Type.Object(
  {
    id: Type.String({ description: 'stream id' }),
    seq: Type.Integer({ minimum: 1, description: 'position in the journal, from 1' }),
    type: Type.String({
      description: 'e.g. deposit_credited, session_key_authorized, bet_committed, bet_settled, ticket_opened, sweeper_turn_settled, ticket_settled',
    }),
    at: { ...Timestamp, description: 'when it happened' },
    data: documented(Type.Unknown({ description: EVENT_DATA }), Type.Object({}, { additionalProperties: EventValue, description: EVENT_DATA })),
  },
  { description: 'a public journal event' },
);

export const EventsResponse = Type.Object(
  {
    events: Type.Array(JournalEvent, { description: 'events in seq order' }),
    lastSeq: Type.Integer({ description: 'highest seq in the journal' }),
  },
  { description: 'Journal events', examples: [EX.events] },
);
