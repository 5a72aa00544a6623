// Wallet authentication: challenge and session.
import { Type } from 'typebox';
import { Base64, Timestamp } from './common.ts';

export const ChallengeQuery = Type.Object({
  wallet: Type.String({ description: 'wallet public key (base58)' }),
});

export const WalletChallenge = Type.Object({
  walletAddress: Type.String(),
  message: Type.String({ description: 'Sign-In With Solana style text; sign these exact UTF-8 bytes' }),
  nonce: Type.String(),
  expiresAt: Timestamp,
});

export const SessionBody = Type.Object({
  walletAddress: Type.String({ minLength: 1 }),
  message: Type.String({ minLength: 1 }),
  signature: { ...Base64, minLength: 1 },
});

export const WalletSession = Type.Object({ token: Type.String(), walletAddress: Type.String(), expiresAt: Timestamp });
