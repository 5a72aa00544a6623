// Shapes shared by the Dice and Sweeper flows: the operator ack, commit and reveal bodies, recovery seeds.
import { Type } from 'typebox';
import { Base64, Hex32, Timestamp } from './common.ts';

const Loose = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

export const Ack = Type.Object({
  betPayloadHash: Hex32,
  betNonce: Type.Integer(),
  rngIndex: Type.Integer({ description: "assigned at commit; the bet's randomness is s_rngIndex of the chain" }),
  rngChainHead: Hex32,
  committedAt: Timestamp,
  revealDeadline: Timestamp,
  ackHash: { ...Hex32, description: 'sha256 of the JCS of the six fields above' },
  operatorSignature: { ...Base64, description: 'ack key Ed25519 over UTF-8 "pfws:v1:ack:<ackHash>"' },
  revealMessage: Type.String({ description: 'pfws:v1:reveal:<betPayloadHash>:<ackHash>; the reveal signs these UTF-8 bytes' }),
});

export const BetPayload = Loose('canonical bet payload; betPayloadHash = sha256(JCS(betPayload))');

export const CommitResponse = Type.Object({
  status: Type.Union([Type.Literal('awaiting_reveal'), Type.Literal('settled')], {
    description: 'awaiting_reveal after a commit; a commit re-sent after the bet settled answers settled',
  }),
  betPayloadHash: Hex32,
  rngIndex: Type.Integer(),
  ack: Ack,
  revealMessage: Type.String(),
  revealDeadline: Timestamp,
});

export const RevealBody = Type.Object({
  betPayloadHash: Hex32,
  clientSeedRaw: Type.String({ description: '32 bytes as hex (either case); sha256 of these bytes is the commitment' }),
  sessionSignature: { ...Base64, description: 'session key Ed25519 over the UTF-8 bytes of ack.revealMessage' },
});

export const PlayerView = Type.Object({
  balance: Type.Number(),
  exposure: Type.Number(),
  stakedInPlay: Type.Number(),
  nonce: Type.Integer(),
});

export const RecoverySeedBody = Type.Object({
  betPayloadHash: Hex32,
  clientSeedRaw: Type.String({ description: '32 bytes as lowercase hex' }),
});

export const RecoverySeedStored = Type.Object({ betPayloadHash: Hex32, stored: Type.Boolean(), state: Type.String() });

export const RecoverySeedQuery = Type.Object({ betPayloadHash: Type.String() });

export const RecoverySeed = Type.Object({
  betPayloadHash: Hex32,
  clientSeedRaw: Type.String(),
  state: Type.String({ description: 'committed or settled' }),
  ack: Ack,
});

export { Loose };
