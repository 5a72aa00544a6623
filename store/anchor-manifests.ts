// Journal manifests in Redis: the chain head, the one unsigned draft, every manifest by hash, public events.
import type { Redis } from 'ioredis';
import type { Keys } from './keys.ts';
import type { Scripts } from './scripts.ts';
import { MAX_ARCHIVED_EVENTS, type JournalArchive } from './retention.ts';
import type { JournalEvent, Manifest, ManifestBody } from '../protocol/manifest.ts';

/** A manifest with the seq range it covers (the seqs are ours; the contract's fields are in `manifest`). */
export interface ManifestRecord {
  manifest: Manifest;
  firstSeq: number;
  lastSeq: number;
}

/** The next manifest, fixed before it is signed, so a restart signs exactly the same one. */
export interface ManifestDraft {
  body: ManifestBody;
  firstSeq: number;
  lastSeq: number;
}

export interface ManifestState {
  /** Hash of the newest manifest, or null before the first. */
  latest: string | null;
  lastEventId: string | null;
  lastSeq: number;
  draft: ManifestDraft | null;
}

/** Turns a raw stream entry into the public event `{ id, seq, type, at, data }`. */
export function toPublicEvent(id: string, fields: string[]): JournalEvent {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i] as string] = fields[i + 1] as string;
  let data: unknown = f.data ?? null;
  try {
    data = JSON.parse(f.data ?? 'null');
  } catch {
    // Kept as the stored text: the manifest hashes what is published, whatever it is.
  }
  return { id, seq: Number(f.seq), type: f.type ?? '', at: f.at ?? '', data };
}

export class ManifestStore {
  /** @param archive where events trimmed from the stream are read (store/retention.ts); null: this process reads none */
  constructor(
    readonly redis: Redis,
    readonly keys: Keys,
    readonly scripts: Scripts,
    readonly archive: JournalArchive | null = null,
  ) {}

  async state(): Promise<ManifestState> {
    const [latest, lastEventId, lastSeq, draft] = await this.redis.hmget(this.keys.manifest(), 'latest', 'lastEventId', 'lastSeq', 'draft');
    return {
      latest: latest || null,
      lastEventId: lastEventId || null,
      lastSeq: Number(lastSeq ?? 0),
      draft: draft ? (JSON.parse(draft) as ManifestDraft) : null,
    };
  }

  /** The journal's highest seq. */
  async journalSeq(): Promise<number> {
    return Number((await this.redis.get(this.keys.journalSeq())) ?? 0);
  }

  /** Up to `count` events after the stream id `afterId` (from the start when null). */
  async eventsAfterId(afterId: string | null, count: number): Promise<JournalEvent[]> {
    const raw = await this.redis.xrange(this.keys.journal(), afterId ? `(${afterId}` : '-', '+', 'COUNT', count);
    return raw.map(([id, fields]) => toPublicEvent(id, fields));
  }

  /**
   * Up to `limit` events with `seq > afterSeq`, in order: from the stream, and from the archive below the stream's
   * oldest entry once older events were trimmed from it.
   * @param client - who asks (its address): reads from the archive spend that client's share of its budget
   * @throws {PfwsError} SERVICE_UNAVAILABLE when trimmed events are asked for and the archive cannot answer
   */
  async eventsAfterSeq(afterSeq: number, limit: number, client?: string): Promise<JournalEvent[]> {
    const kept = await this.#streamEventsAfterSeq(afterSeq, limit);
    if (!this.archive || (kept[0]?.seq ?? Number.POSITIVE_INFINITY) === afterSeq + 1) return kept;
    // Read after the stream, so a trim in between only widens what the archive gives.
    const [first] = await this.redis.xrange(this.keys.journal(), '-', '+', 'COUNT', 1);
    const firstSeq = first ? toPublicEvent(first[0], first[1]).seq : (await this.journalSeq()) + 1;
    if (firstSeq <= afterSeq + 1) return kept;
    const archived: JournalEvent[] = [];
    const toSeq = Math.min(firstSeq - 1, afterSeq + limit);
    for (let from = afterSeq; from < toSeq; from += MAX_ARCHIVED_EVENTS) {
      const range = { afterSeq: from, toSeq: Math.min(toSeq, from + MAX_ARCHIVED_EVENTS) };
      for (const r of await this.archive.archivedEvents(client === undefined ? range : { ...range, client })) {
        archived.push(toPublicEvent(r.id, ['seq', String(r.seq), 'type', r.type, 'at', r.at, 'data', r.data]));
      }
    }
    const last = archived[archived.length - 1]?.seq ?? afterSeq;
    return archived.concat(kept.filter((e) => e.seq > last)).slice(0, limit);
  }

  /** The stream's events with `seq > afterSeq`, from the manifest that covers the next seq: one manifest's events plus `limit` at most. */
  async #streamEventsAfterSeq(afterSeq: number, limit: number): Promise<JournalEvent[]> {
    const hash = (await this.redis.zrevrangebyscore(this.keys.manifestsBySeq(), afterSeq + 1, '-inf', 'LIMIT', 0, 1))[0];
    const from = hash ? await this.get(hash) : null;
    const out: JournalEvent[] = [];
    let start = from ? from.manifest.firstEventId : '-';
    let inclusive = true;
    const CHUNK = 1000;
    while (out.length < limit) {
      const raw = await this.redis.xrange(this.keys.journal(), inclusive ? start : `(${start}`, '+', 'COUNT', CHUNK);
      for (const [id, fields] of raw) {
        const event = toPublicEvent(id, fields);
        if (event.seq > afterSeq) out.push(event);
        if (out.length >= limit) break;
      }
      if (raw.length < CHUNK) break;
      start = raw[raw.length - 1]![0];
      inclusive = false;
    }
    return out;
  }

  /** @returns false when the head moved or a draft already exists */
  async claimDraft(latest: string | null, draft: ManifestDraft): Promise<boolean> {
    return (await this.scripts.claimManifestDraft([this.keys.manifest()], [latest ?? '', JSON.stringify(draft)])) === 1;
  }

  async publish(previous: string | null, record: ManifestRecord): Promise<boolean> {
    const k = this.keys;
    const m = record.manifest;
    const fields = {
      previousHash: previous ?? '',
      manifestHash: m.manifestHash,
      recordJson: JSON.stringify(record),
      firstSeq: record.firstSeq,
      lastEventId: m.lastEventId,
      lastSeq: record.lastSeq,
    };
    return (await this.scripts.publishManifest([k.manifest(), k.manifests(), k.manifestsBySeq()], fields)) === 1;
  }

  async get(manifestHash: string): Promise<ManifestRecord | null> {
    const raw = await this.redis.hget(this.keys.manifests(), manifestHash);
    return raw ? (JSON.parse(raw) as ManifestRecord) : null;
  }

  /** Up to `limit` manifests whose range starts after `afterSeq`, oldest first. */
  async recordsAfterSeq(afterSeq: number, limit: number): Promise<ManifestRecord[]> {
    const hashes = await this.redis.zrangebyscore(this.keys.manifestsBySeq(), `(${afterSeq}`, '+inf', 'LIMIT', 0, limit);
    if (hashes.length === 0) return [];
    const raw = await this.redis.hmget(this.keys.manifests(), ...hashes);
    return raw.filter((r): r is string => r !== null).map((r) => JSON.parse(r) as ManifestRecord);
  }

  async latest(): Promise<ManifestRecord | null> {
    const { latest } = await this.state();
    return latest ? this.get(latest) : null;
  }
}
