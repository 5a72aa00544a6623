// Asks the witnesses the operator lists to cosign the newest checkpoint (c2sp.org/tlog-witness add-checkpoint)
// and keeps each verified cosignature, which the API then serves with the checkpoint. A witness that is down
// or refuses delays nothing: it is asked again after the next commit.
import type { Logger } from 'pino';
import { toBase64 } from '../protocol/encoding.ts';
import { parseWitnessKey, verifyCosignatureLine, type WitnessKey } from '../protocol/witness.ts';
import type { TransparencyStore } from '../store/transparency.ts';

export interface WitnessConfig {
  vkey: string;
  /** URL prefix: add-checkpoint is POSTed to `<url>/add-checkpoint`. */
  url: string;
}

export interface WitnessDeps {
  transparency: TransparencyStore;
  /** RFC 6962 consistency proof between two committed sizes. */
  consistencyProof(size1: number, size2: number): Promise<Uint8Array[]>;
  witnesses: readonly WitnessConfig[];
  logger: Logger;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

const MAX_ANSWER_BYTES = 16 * 1024;

/** The add-checkpoint body: `old <size>`, the consistency proof a line a hash, a blank line, the checkpoint. */
export const addCheckpointBody = (oldSize: number, proof: readonly Uint8Array[], note: string): string =>
  `old ${oldSize}\n${proof.map((h) => `${toBase64(h)}\n`).join('')}\n${note}`;

async function askOne(deps: WitnessDeps, witness: WitnessConfig, key: WitnessKey, size: number, note: string, known: number): Promise<string | null> {
  const text = note.slice(0, note.lastIndexOf('\n\n') + 1);
  let old = known;
  // One retry: a 409 names the size the witness holds, from which the proof is sent again.
  for (let attempt = 0; attempt < 2; attempt++) {
    const proof = old > 0 && old < size ? await deps.consistencyProof(old, size) : [];
    const res = await (deps.fetch ?? fetch)(`${witness.url}/add-checkpoint`, {
      method: 'POST',
      body: addCheckpointBody(old, proof, note),
      signal: AbortSignal.timeout(deps.timeoutMs ?? 10_000),
    });
    const answer = (await res.text()).slice(0, MAX_ANSWER_BYTES);
    if (res.status === 409 && (res.headers.get('content-type') ?? '').startsWith('text/x.tlog.size')) {
      const theirs = Number(answer.trim());
      if (!Number.isSafeInteger(theirs) || theirs < 0 || theirs > size || theirs === old) break;
      old = theirs;
      continue;
    }
    if (!res.ok) {
      deps.logger.warn({ witness: key.name, status: res.status, answer: answer.slice(0, 200) }, 'witness: add-checkpoint refused');
      return null;
    }
    const line = answer.split('\n').find((l) => verifyCosignatureLine(l, text, key));
    if (!line) deps.logger.warn({ witness: key.name }, 'witness: the answer holds no valid cosignature by its key');
    return line ?? null;
  }
  deps.logger.warn({ witness: key.name, size }, 'witness: it holds a checkpoint this log cannot extend');
  return null;
}

/**
 * Asks every witness that has not cosigned the newest checkpoint yet.
 * @returns how many new cosignatures were kept
 */
export async function cosignLatest(deps: WitnessDeps): Promise<number> {
  if (!deps.witnesses.length) return 0;
  const latest = await deps.transparency.latestCheckpoint();
  if (!latest) return 0;
  const have = await deps.transparency.cosignatures();
  let kept = 0;
  await Promise.all(
    deps.witnesses.map(async (witness) => {
      const key = parseWitnessKey(witness.vkey);
      const prior = have.get(key.name);
      if (prior && prior.size >= latest.size) return;
      try {
        const line = await askOne(deps, witness, key, latest.size, latest.note, prior?.size ?? 0);
        if (line) {
          await deps.transparency.saveCosignature(key.name, latest.size, line);
          kept++;
        }
      } catch (err) {
        deps.logger.warn({ err, witness: key.name }, 'witness: add-checkpoint failed');
      }
    }),
  );
  return kept;
}
