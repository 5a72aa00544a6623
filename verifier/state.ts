// What a monitor keeps between polls (design §11): the verified log as a compact range and the roots it
// reproduced, where each anchor key's history was read to, the RNG indices used and recent anchored
// values, the last verified manifest, and the wallets' session-key memos. Its size grows with the number
// of commits and chains, never with the number of entries.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CompactRange, type CompactRangeJson } from '../protocol/compact-range.ts';
import { IndexSet } from '../protocol/verify/index-set.ts';
import type { RngAnchors } from '../protocol/verify/rng.ts';
import type { ManifestMark } from './manifests.ts';
import type { WalletState } from './session-keys.ts';
import { sha256Hex } from './crypto.ts';
import { writeFileAtomic } from './trust.ts';

export const STATE_VERSION = 1;
/** Roots kept for sizes verified before (a later commit or checkpoint of an old size is compared with them). */
const MAX_ROOTS = 10_000;
/** Anchored RNG values kept per chain: a reveal that settles late links to one of these. */
const RNG_POINTS = 4_096;

export interface MonitorState {
  version: number;
  api: string;
  trustRootFingerprint: string;
  range: CompactRangeJson;
  /** [size, root hex] of the commits verified, oldest first. */
  roots: [number, string][];
  /** Newest signature read per anchor key. */
  anchorNewest: Record<string, string | null>;
  rngHeads: string[];
  rngPoints: { head: string; index: number; value: string }[];
  /** Used RNG indices per chain head, as ranges. */
  used: Record<string, [number, number][]>;
  manifest: ManifestMark | null;
  wallets: Record<string, WalletState>;
  updatedAt: string;
}

export const stateFileOf = (stateDir: string, apiUrl: string): string => path.join(stateDir, 'monitor', `${sha256Hex(apiUrl).slice(0, 16)}.json`);

/** @throws when the file exists but is not a state of this version for this API */
export function loadState(file: string, apiUrl: string): MonitorState | null {
  if (!existsSync(file)) return null;
  const state = JSON.parse(readFileSync(file, 'utf8')) as MonitorState;
  if (state.version !== STATE_VERSION || state.api !== apiUrl) throw new Error(`${file} is not a monitor state (version ${STATE_VERSION}) for ${apiUrl}`);
  CompactRange.fromJSON(state.range);
  for (const ranges of Object.values(state.used)) IndexSet.fromJSON(ranges);
  return state;
}

export function saveState(file: string, state: MonitorState): void {
  writeFileAtomic(file, `${JSON.stringify({ ...state, roots: state.roots.slice(-MAX_ROOTS) })}\n`);
}

export function restoreRng(state: MonitorState, rng: RngAnchors): void {
  for (const h of state.rngHeads) rng.addHead(h);
  for (const p of state.rngPoints.sort((a, b) => a.index - b.index)) rng.addPoint(p.head, p.index, p.value);
}

export const usedOf = (state: MonitorState | null): Map<string, IndexSet> =>
  new Map(Object.entries(state?.used ?? {}).map(([head, ranges]) => [head, IndexSet.fromJSON(ranges)]));

export function exportRng(rng: RngAnchors): Pick<MonitorState, 'rngHeads' | 'rngPoints'> {
  return { rngHeads: rng.heads(), rngPoints: rng.recentPoints(RNG_POINTS) };
}
