// Public receipts.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { responses } from '../../schemas/common.ts';
import { ReceiptParams, ReceiptResponse } from '../../schemas/receipt.ts';
import { PfwsError } from '../../protocol/errors.ts';
import type { ApiDeps } from '../deps.ts';

/** The parts these routes use. */
export type ReceiptRouteDeps = Pick<ApiDeps, 'receipts'>;

export default async function receiptRoutes(fastify: FastifyInstance, { receipts }: ReceiptRouteDeps) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get('/receipts/:id', { schema: { tags: ['receipts'], params: ReceiptParams, response: responses({ 200: ReceiptResponse }) } }, async (request) => {
    const receipt = await receipts.read(request.params.id, request.ip);
    if (!receipt) throw new PfwsError('RECEIPT_NOT_FOUND', `No receipt with id ${request.params.id}`);
    return { receipt };
  });
}
