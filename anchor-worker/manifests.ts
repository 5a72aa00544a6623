/**
 * Builds and signs the journal manifests: every MANIFEST_MAX_EVENTS events or MANIFEST_MAX_DELAY_MS.
 * The next manifest is fixed as a draft on top of the current head before it is signed; Ed25519 is
 * deterministic, so a restart re-signs the very same manifest and no predecessor is ever named twice.
 * @module
 */
import type { Logger } from 'pino';
import type { OperatorKey } from '../operator/keys.ts';
import { NO_MANIFEST_HASH, buildManifestBody, signManifest, type Manifest } from '../protocol/manifest.ts';
import type { ManifestDraft, ManifestStore } from '../store/anchor-manifests.ts';
import type { ReplicationBarrier } from '../store/replication.ts';

export interface ManifestHooks {
  /** Runs after the draft is stored and before it is signed and published (tests stop here). */
  afterDraft?(draft: ManifestDraft): Promise<void>;
}

export interface ManifestDeps {
  store: ManifestStore;
  /** The anchor key signs manifests (`operatorPublicKey`). */
  anchorKey: OperatorKey;
  /** Events per manifest at most (MANIFEST_MAX_EVENTS). */
  maxEvents: number;
  clock: () => Date;
  logger: Logger;
  /** The events a manifest signs, and its draft, are on the replicas before it is published. */
  replication: ReplicationBarrier;
}

export class ManifestBuilder {
  readonly store: ManifestStore;

  constructor(
    readonly deps: ManifestDeps,
    readonly hooks: ManifestHooks = {},
  ) {
    this.store = deps.store;
  }

  /** Signs and publishes the next manifest; null when there are no new events (or another worker won). */
  async run(): Promise<Manifest | null> {
    const { deps } = this;
    const state = await this.store.state();
    let draft = state.draft;
    if (!draft) {
      const events = await this.store.eventsAfterId(state.lastEventId, deps.maxEvents);
      const first = events[0];
      const last = events[events.length - 1];
      if (!first || !last) return null;
      draft = {
        body: buildManifestBody(events, state.latest ?? NO_MANIFEST_HASH, deps.anchorKey.publicKey, deps.clock().toISOString()),
        firstSeq: first.seq,
        lastSeq: last.seq,
      };
      if (!(await this.store.claimDraft(state.latest, draft))) return null;
    }
    await this.hooks.afterDraft?.(draft);
    await deps.replication.confirm();
    const manifest = signManifest(draft.body, deps.anchorKey.seed);
    const previous = draft.body.previousManifestHash === NO_MANIFEST_HASH ? null : draft.body.previousManifestHash;
    if (!(await this.store.publish(previous, { manifest, firstSeq: draft.firstSeq, lastSeq: draft.lastSeq }))) return null;
    deps.logger.debug({ manifestHash: manifest.manifestHash, eventCount: manifest.eventCount }, 'manifest: signed');
    return manifest;
  }
}
