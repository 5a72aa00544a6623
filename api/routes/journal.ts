// Public journal reads: the signed manifests (latest and by hash) and the events they cover.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { pageSize, responses } from '../../schemas/common.ts';
import { EventsQuery, EventsResponse, ManifestParams, ManifestResponse } from '../../schemas/journal.ts';
import { PfwsError } from '../../protocol/errors.ts';
import type { ApiDeps } from '../deps.ts';

/** The parts these routes use. */
export type JournalRouteDeps = Pick<ApiDeps, 'manifests'>;

export default async function journalRoutes(fastify: FastifyInstance, { manifests: store }: JournalRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const meta = { tags: ['journal'] };

  app.get(
    '/protocol/v1/journal/manifest/latest',
    { schema: { ...meta, summary: 'The newest signed journal manifest', response: responses({ 200: ManifestResponse }) } },
    async () => {
      const record = await store.latest();
      if (!record) throw new PfwsError('NOT_FOUND', 'No journal manifest has been signed yet');
      return { manifest: record.manifest };
    },
  );

  app.get(
    '/protocol/v1/journal/manifests/:manifestHash',
    { schema: { ...meta, summary: 'A manifest by hash, to walk the chain', params: ManifestParams, response: responses({ 200: ManifestResponse }) } },
    async (request) => {
      const record = await store.get(request.params.manifestHash);
      if (!record) throw new PfwsError('NOT_FOUND', `No manifest with hash ${request.params.manifestHash}`);
      return { manifest: record.manifest };
    },
  );

  app.get(
    '/protocol/v1/journal/events',
    {
      schema: {
        ...meta,
        summary: 'Public journal events by seq, to recompute eventRoot',
        querystring: EventsQuery,
        response: responses({ 200: EventsResponse }),
      },
    },
    async (request) => {
      const [events, lastSeq] = await Promise.all([
        store.eventsAfterSeq(request.query.afterSeq ?? 0, pageSize(request.query.limit), request.ip),
        store.journalSeq(),
      ]);
      return { events, lastSeq };
    },
  );
}
