// Public bet-log reads: anchored commits, consistency proofs between committed sizes, and log entries.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { pageSize, responses } from '../../schemas/common.ts';
import { CommitsQuery, CommitsResponse, ConsistencyQuery, ConsistencyResponse, EntriesQuery, EntriesResponse } from '../../schemas/anchor.ts';
import { PfwsError } from '../../protocol/errors.ts';
import type { CommitRecord } from '../../store/anchor-store.ts';
import { parseBetLogItem } from '../../store/anchor-tree.ts';
import { proofToHex } from '../../protocol/merkle.ts';
import type { ApiDeps } from '../deps.ts';

/** The parts these routes use. */
export type BetLogRouteDeps = Pick<ApiDeps, 'anchors' | 'links' | 'chain'>;

export default async function betLogRoutes(fastify: FastifyInstance, { anchors: store, links, chain }: BetLogRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const meta = { tags: ['bet-log'] };
  const view = (c: CommitRecord) => ({ ...c, transactionUrl: links.transaction(c.signature), explorerUrl: links.account(chain.anchorPublicKey) });

  app.get(
    '/protocol/v1/bet-log/commits',
    { schema: { ...meta, summary: 'Anchored commits, oldest first', querystring: CommitsQuery, response: responses({ 200: CommitsResponse }) } },
    async (request) => {
      const limit = pageSize(request.query.limit);
      const [commits, committedSize] = await Promise.all([store.commits(request.query.afterEntryCount ?? 0, limit), store.committedSize()]);
      const last = commits[commits.length - 1];
      return { commits: commits.map(view), committedSize, nextAfterEntryCount: commits.length === limit && last ? last.entryCount : null };
    },
  );

  app.get(
    '/protocol/v1/bet-log/consistency',
    {
      schema: {
        ...meta,
        summary: 'RFC 6962 consistency proof between two committed sizes',
        querystring: ConsistencyQuery,
        response: responses({ 200: ConsistencyResponse }),
      },
    },
    async (request) => {
      const { from, to } = request.query;
      if (from > to) throw new PfwsError('INVALID_REQUEST', 'from must not exceed to');
      const [a, b] = await Promise.all([store.commitAt(from), store.commitAt(to)]);
      if (!a || !b) throw new PfwsError('NOT_FOUND', `Both sizes must be committed sizes (see /protocol/v1/bet-log/commits); ${!a ? from : to} is not`);
      const proof = await store.consistencyProof(from, to);
      return { from, to, fromRoot: a.betLogRoot, toRoot: b.betLogRoot, proof: proofToHex(proof) };
    },
  );

  app.get(
    '/protocol/v1/bet-log/entries',
    {
      schema: {
        ...meta,
        summary: 'Bet-log entries (leaf hash and receipt id) by index',
        querystring: EntriesQuery,
        response: responses({ 200: EntriesResponse }),
      },
    },
    async (request) => {
      const from = request.query.from ?? 0;
      const limit = pageSize(request.query.limit);
      const [items, size, committedSize] = await Promise.all([store.logItems(from, from + limit), store.logSize(), store.committedSize()]);
      const entries = items.map((item, i) => {
        const { leafHex, receiptId } = parseBetLogItem(item, from + i);
        return { index: from + i, leafHash: leafHex, receiptId };
      });
      return { entries, size, committedSize };
    },
  );
}
