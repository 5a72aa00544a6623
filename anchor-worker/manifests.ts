/**
 * Builds and signs the journal manifests: every MANIFEST_MAX_EVENTS events or MANIFEST_MAX_DELAY_MS.
 * The next manifest is fixed as a draft on top of the current head before it is signed; Ed25519 is
 * deterministic, so a restart re-signs the very same manifest and no predecessor is ever named twice.
 * @module
 */
import type { Services } from '../services.ts';
import { NO_MANIFEST_HASH, buildManifestBody, signManifest, type Manifest } from '../protocol/manifest.ts';
import { ManifestStore, type ManifestDraft } from '../store/anchor-manifests.ts';

export interface ManifestHooks {
  /** Runs after the draft is stored and before it is signed and published (tests stop here). */
  afterDraft?(draft: ManifestDraft): Promise<void>;
}

export class ManifestBuilder {
  readonly store: ManifestStore;

  constructor(
    readonly services: Services,
    readonly hooks: ManifestHooks = {},
  ) {
    this.store = new ManifestStore(services.redis, services.keys);
  }

  /** Signs and publishes the next manifest; null when there are no new events (or another worker won). */
  async run(): Promise<Manifest | null> {
    const { services } = this;
    const state = await this.store.state();
    let draft = state.draft;
    if (!draft) {
      const events = await this.store.eventsAfterId(state.lastEventId, services.config.MANIFEST_MAX_EVENTS);
      const first = events[0];
      const last = events[events.length - 1];
      if (!first || !last) return null;
      draft = {
        body: buildManifestBody(events, state.latest ?? NO_MANIFEST_HASH, services.operator.anchor.publicKey, services.now().toISOString()),
        firstSeq: first.seq,
        lastSeq: last.seq,
      };
      if (!(await this.store.claimDraft(state.latest, draft))) return null;
    }
    await this.hooks.afterDraft?.(draft);
    const manifest = signManifest(draft.body, services.operator.anchor.seed);
    const previous = draft.body.previousManifestHash === NO_MANIFEST_HASH ? null : draft.body.previousManifestHash;
    if (!(await this.store.publish(previous, { manifest, firstSeq: draft.firstSeq, lastSeq: draft.lastSeq }))) return null;
    services.logger.debug({ manifestHash: manifest.manifestHash, eventCount: manifest.eventCount }, 'manifest: signed');
    return manifest;
  }
}
