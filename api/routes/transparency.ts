// Reads for independent verifiers (design §11): the trust root, the bet log as C2SP tiles and entry
// bundles, receipt bundles, the signed checkpoint, and the on-chain pointer to a session key's setup.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { EtagMemo, sendCacheable } from '../http-cache.ts';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { responses } from '../../schemas/common.ts';
import { PfwsError } from '../../protocol/errors.ts';
import {
  CheckpointNote,
  NotModified,
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

// A full tile never changes; a partial one is followed by a wider one, as the checkpoint is by a newer one.
const IMMUTABLE = 'public, max-age=31536000, immutable';
const SHORT = 'public, max-age=2';

/** The parts these routes use. */
export type TransparencyRouteDeps = Pick<ApiDeps, 'transparency' | 'trustRoots'>;

export default async function transparencyRoutes(fastify: FastifyInstance, { transparency: store, trustRoots }: TransparencyRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const meta = { tags: ['transparency'] };
  const fullTileTags = new EtagMemo();
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
        summary:
          'The latest commit as a C2SP tlog-checkpoint, signed by the anchor key, with the cosignatures of the witnesses the operator lists (text/plain)',
        response: { ...responses({}), 200: CheckpointNote, 304: NotModified },
      },
    },
    async (request, reply) => {
      const latest = await store.cosignedCheckpoint();
      if (!latest) throw new PfwsError('NOT_FOUND', 'No checkpoint has been signed yet');
      return sendCacheable(request, reply, Buffer.from(latest.note), SHORT, 'text/plain; charset=utf-8');
    },
  );

  const tile = (bundle: 'tile' | 'receipts') => async (request: FastifyRequest<{ Params: { '*': string } }>, reply: FastifyReply) => {
    const parsed = parseTilePath(bundle === 'tile' ? request.params['*'] : `entries/${request.params['*']}`);
    if (!parsed) throw new PfwsError('NOT_FOUND', 'Not a tile path (see c2sp.org/tlog-tiles)');
    const missing = () => new PfwsError('NOT_FOUND', 'The committed log has no such tile yet');
    if (bundle === 'receipts') {
      const body = await store.receiptBundleBytes(parsed.index, parsed.width);
      if (body === null) throw missing();
      reply.raw.once('close', body.release);
      // Receipt anchors are filled after their commit lands, so these are not immutable.
      return reply.type('application/json; charset=utf-8').header('cache-control', 'public, max-age=5').send(body.bytes);
    }
    const stored = await store.tile(parsed);
    if (!stored) throw missing();
    // A stored tile's buffer is reused once the reply is done with it: 'close' comes after the last write, or after
    // the socket is gone (its pending writes cancelled).
    reply.raw.once('close', stored.release);
    if (!stored.full) return sendCacheable(request, reply, stored.bytes, SHORT, 'application/octet-stream');
    // A full tile's bytes never change: its tag is hashed once per process.
    return sendCacheable(request, reply, stored.bytes, IMMUTABLE, 'application/octet-stream', fullTileTags.of(request.url, stored.bytes));
  };

  app.get(
    '/protocol/v1/bet-log/tile/*',
    {
      schema: {
        ...meta,
        summary: 'C2SP tlog-tiles: tile/<L>/<N>[.p/<W>] (hashes, height 8) and tile/entries/<N>[.p/<W>] (entry bundles), of the committed tree',
        params: TilePath,
        response: { ...responses({}), 200: TileBytes, 304: NotModified },
      },
    },
    async (request, reply) => tile('tile')(request, reply),
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
    async (request, reply) => tile('receipts')(request, reply),
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
