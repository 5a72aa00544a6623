// The independent verifier's pure core: takes fetched public data, returns structured check results.
export * from './report.ts';
export * from './bounds.ts';
export * from './chain.ts';
export * from './rng.ts';
export * from './index-set.ts';
export * from './turn.ts';
export * from './rebuild.ts';
export * from './proofs.ts';
export * from './anchor.ts';
export * from './session-key.ts';
export * from './dice.ts';
export * from './sweeper.ts';
export * from './receipt.ts';
export * from './manifests.ts';
export * from './log.ts';
export * from './state-proof.ts';
