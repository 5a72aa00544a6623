// Wallet authentication: challenge and session.
import { Type } from 'typebox';
import { Base64, Timestamp } from './common.ts';
import * as EX from './examples.ts';

export const ChallengeQuery = Type.Object({
  wallet: Type.String({ description: 'wallet public key (base58)', examples: [EX.WALLET] }),
});

export const WalletChallenge = Type.Object(
  {
    walletAddress: Type.String({ description: 'the wallet' }),
    message: Type.String({ description: 'Sign-In With Solana style text; sign these exact UTF-8 bytes with the wallet' }),
    nonce: Type.String({ description: 'single-use nonce inside message' }),
    expiresAt: { ...Timestamp, description: 'sign and exchange it before then' },
  },
  { description: 'The text to sign', examples: [EX.challenge] },
);

export const SessionBody = Type.Object(
  {
    walletAddress: Type.String({ minLength: 1, description: 'the wallet (base58)' }),
    message: Type.String({ minLength: 1, description: 'the challenge message, exactly as received' }),
    signature: { ...Base64, minLength: 1, description: 'the wallet Ed25519 signature over the UTF-8 bytes of message (base64)' },
  },
  { examples: [EX.sessionBody] },
);

export const WalletSession = Type.Object(
  {
    token: Type.String({ description: 'bearer token: send Authorization: Bearer <token>' }),
    walletAddress: Type.String({ description: 'the wallet' }),
    expiresAt: { ...Timestamp, description: 'the token works until then' },
  },
  { description: 'Signed in', examples: [EX.session] },
);

export const SessionRevoked = Type.Object(
  {
    revoked: Type.Literal(true, { description: 'the token no longer works, on any API process' }),
    walletAddress: Type.String({ description: 'the wallet the token was for' }),
  },
  { description: 'Signed out: the bearer token is revoked everywhere', examples: [EX.sessionRevoked] },
);
