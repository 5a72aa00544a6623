// Reads for independent verifiers (design §11): the trust root, the bet log as C2SP tiles and entry
// bundles, receipt bundles, the signed checkpoint, and the on-chain pointer to a session key's setup.
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { responses } from '../../schemas/common.ts';
import { PfwsError } from '../../protocol/errors.ts';
import {
  CheckpointNote,
  ReceiptBundlePath,
  ReceiptBundleResponse,
  SessionKeyPointerParams,
  SessionKeyPointerResponse,
  TileBytes,
  TilePath,
  TrustRootResponse,
} from '../../schemas/transparency.ts';
import { parseTilePath } from '../../protocol/tlog-tiles.ts';
import type { ApiDeps } from '../deps.ts';

// A tile of a given width never changes; only a missing one may appear later.
const IMMUTABLE = 'public, max-age=31536000, immutable';

/** The parts these routes use. */
export type TransparencyRouteDeps = Pick<ApiDeps, 'transparency' | 'trustRoots'>;

export default async function transparencyRoutes(fastify: FastifyInstance, { transparency: store, trustRoots }: TransparencyRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const meta = { tags: ['transparency'] };
  // Keys are first published when the API starts, before it can take a bet: their validFrom precedes every signature.
  await trustRoots.current().catch((err: unknown) => app.log.warn({ err }, 'trust root: not published at start'));

  app.get(
    '/protocol/v1/trust-root',
    { schema: { ...meta, summary: 'The chain objects and operator keys a verifier pins once', response: responses({ 200: TrustRootResponse }) } },
    async () => trustRoots.current(),
  );

  app.get(
    '/protocol/v1/bet-log/checkpoint',
    {
      schema: {
        ...meta,
        summary: 'The latest commit as a C2SP tlog-checkpoint, signed by the anchor key (text/plain)',
        response: { ...responses({}), 200: CheckpointNote },
      },
    },
    async (_request, reply) => {
      const latest = await store.latestCheckpoint();
      if (!latest) throw new PfwsError('NOT_FOUND', 'No checkpoint has been signed yet');
      return reply.type('text/plain; charset=utf-8').header('cache-control', 'public, max-age=2').send(latest.note);
    },
  );

  const tile = (bundle: 'tile' | 'receipts') => async (params: { '*': string }, reply: FastifyReply) => {
    const parsed = parseTilePath(bundle === 'tile' ? params['*'] : `entries/${params['*']}`);
    if (!parsed) throw new PfwsError('NOT_FOUND', 'Not a tile path (see c2sp.org/tlog-tiles)');
    const size = await store.committedSize();
    const missing = () => new PfwsError('NOT_FOUND', `The committed log (${size} entries) has no such tile yet`);
    if (bundle === 'receipts') {
      const json = await store.receiptBundleJson(parsed.index, parsed.width, size);
      if (json === null) throw missing();
      // Receipt anchors are filled after their commit lands, so these are not immutable.
      return reply.type('application/json; charset=utf-8').header('cache-control', 'public, max-age=5').send(json);
    }
    const bytes =
      parsed.level === null ? await store.entryBundle(parsed.index, parsed.width, size) : await store.hashTile(parsed.level, parsed.index, parsed.width, size);
    if (!bytes) throw missing();
    return reply
      .type('application/octet-stream')
      .header('cache-control', IMMUTABLE)
      .send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
  };

  app.get(
    '/protocol/v1/bet-log/tile/*',
    {
      schema: {
        ...meta,
        summary: 'C2SP tlog-tiles: tile/<L>/<N>[.p/<W>] (hashes, height 8) and tile/entries/<N>[.p/<W>] (entry bundles), of the committed tree',
        params: TilePath,
        response: { ...responses({}), 200: TileBytes },
      },
    },
    async (request, reply) => tile('tile')(request.params, reply),
  );

  app.get(
    '/protocol/v1/bet-log/receipts/*',
    {
      schema: {
        ...meta,
        summary: 'The receipts of entry bundle <N>[.p/<W>], in log order, for bulk verification',
        params: ReceiptBundlePath,
        response: responses({ 200: ReceiptBundleResponse }),
      },
    },
    async (request, reply) => tile('receipts')(request.params, reply),
  );

  app.get(
    '/protocol/v1/session-keys/by-bet/:betPayloadHash',
    {
      schema: {
        ...meta,
        summary: 'Where the setup (or revocation) of the session key that committed a bet is on-chain',
        params: SessionKeyPointerParams,
        response: responses({ 200: SessionKeyPointerResponse }),
      },
    },
    async (request) => {
      const pointer = await store.sessionKeyPointer(request.params.betPayloadHash);
      if (!pointer) throw new PfwsError('NOT_FOUND', `No committed bet ${request.params.betPayloadHash}`);
      return pointer;
    },
  );
}
