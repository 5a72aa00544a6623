/**
 * What the service archived in ClickHouse, read back for a ledger restored from an older backup (design §13): the
 * journal events with their stream ids and seqs, the newest version of each receipt, and the signed manifests.
 * @module
 */
import { verifyManifest, type Manifest } from '../protocol/manifest.ts';
import type { JournalRecord } from '../store/journal-records.ts';
import { bigIntOf, EngineError, type AnalyticsEngine } from './engine.ts';
import { raw, sql, tuple } from './sql.ts';

/** One archived manifest, with the journal seqs it covers. */
export interface ArchivedManifestRecord {
  manifest: Manifest;
  firstSeq: number;
  lastSeq: number;
}

export class RecoveryArchive {
  constructor(readonly engine: AnalyticsEngine) {}

  /** The highest journal seq archived, 0 when none. */
  async maxSeq(): Promise<number> {
    const [row] = await this.engine.query<{ n: unknown; seq: unknown }>('SELECT count() AS n, max(seq) AS seq FROM journal_events');
    return !row || bigIntOf(row.n) === 0n ? 0 : Number(bigIntOf(row.seq));
  }

  /**
   * Archived events with `afterSeq < seq <= toSeq`, in seq order, one per seq (an insert repeated after a crash may
   * hold one twice).
   * @throws {EngineError} when two different events carry one seq: the archive holds two histories
   */
  async events(afterSeq: number, toSeq: number): Promise<JournalRecord[]> {
    const rows = await this.engine.query<{ seq: unknown; id: string; type: string; at: string; data: string }>(
      sql`SELECT seq, id, type, at, data FROM journal_events WHERE seq > ${afterSeq} AND seq <= ${toSeq} ORDER BY seq, id`,
    );
    const out: JournalRecord[] = [];
    for (const r of rows) {
      const seq = Number(bigIntOf(r.seq));
      const prev = out[out.length - 1];
      if (prev?.seq === seq) {
        if (prev.id !== r.id || prev.type !== r.type || prev.data !== r.data) {
          throw new EngineError(`the archive holds two different journal events with seq ${seq} (${prev.id}, ${r.id})`);
        }
        continue;
      }
      out.push({ seq, id: r.id, type: r.type, at: r.at, data: r.data });
    }
    return out;
  }

  /** The archived event of one seq, or null. */
  async event(seq: number): Promise<JournalRecord | null> {
    return (await this.events(seq - 1, seq))[0] ?? null;
  }

  /** The newest archived version of each receipt asked for (JSON bodies, as archived), by id. */
  async receipts(receiptIds: readonly string[]): Promise<Map<string, Record<string, unknown>>> {
    const out = new Map<string, Record<string, unknown>>();
    const ids = [...new Set(receiptIds)];
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      // argMax over the versions, so unmerged parts never give an older receipt.
      const rows = await this.engine.query<{ receiptId: string; body: string }>(
        sql`SELECT receiptId, argMax(body, version) AS body FROM receipts WHERE receiptId IN ${raw(tuple(chunk))} GROUP BY receiptId`,
      );
      for (const r of rows) out.set(r.receiptId, JSON.parse(r.body) as Record<string, unknown>);
    }
    return out;
  }

  /**
   * Archived manifests whose events all have `seq <= toSeq`, each checked (hash and anchor-key signature), by the
   * hash of the manifest they follow (more than one there is a fork of the manifest chain).
   */
  async manifestsByPrevious(toSeq: number, operatorPublicKey: string): Promise<Map<string, ArchivedManifestRecord[]>> {
    const rows = await this.engine.query<Record<string, unknown>>(
      sql`SELECT manifestHash, version, eventCount, eventRoot, firstEventId, lastEventId, previousManifestHash, operatorPublicKey, createdAt, signature, firstSeq, lastSeq FROM manifests WHERE lastSeq <= ${toSeq}`,
    );
    const out = new Map<string, ArchivedManifestRecord[]>();
    for (const r of rows) {
      const manifest: Manifest = {
        version: Number(r.version),
        eventCount: Number(bigIntOf(r.eventCount)),
        eventRoot: String(r.eventRoot),
        firstEventId: String(r.firstEventId),
        lastEventId: String(r.lastEventId),
        previousManifestHash: String(r.previousManifestHash),
        operatorPublicKey: String(r.operatorPublicKey),
        createdAt: String(r.createdAt),
        manifestHash: String(r.manifestHash),
        signature: String(r.signature),
      };
      if (!verifyManifest(manifest, operatorPublicKey).ok) continue;
      const record = { manifest, firstSeq: Number(bigIntOf(r.firstSeq)), lastSeq: Number(bigIntOf(r.lastSeq)) };
      const siblings = out.get(manifest.previousManifestHash) ?? [];
      if (!siblings.some((m) => m.manifest.manifestHash === manifest.manifestHash)) siblings.push(record);
      out.set(manifest.previousManifestHash, siblings);
    }
    return out;
  }
}
