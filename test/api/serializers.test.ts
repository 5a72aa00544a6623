// Response serializers are compiled once per schema: every route lists the error envelope for six statuses or more.
import { describe, expect, it } from 'vitest';
import { sharedSerializers } from '../../api/app.ts';
import { responses } from '../../schemas/common.ts';
import { Type } from 'typebox';

describe('response serializers', () => {
  it('compile a schema once for every route and status that lists it, and each schema to its own', () => {
    const compile = sharedSerializers()({}, {});
    const ok = Type.Object({ receiptId: Type.String() });
    const byRoute = ['/api/a', '/api/b'].flatMap((url) =>
      Object.entries(responses({ 200: ok })).map(([status, schema]) => ({
        url,
        status,
        serialize: compile({ method: 'GET', url, httpStatus: status, schema }),
      })),
    );
    const errors = byRoute.filter((r) => r.status !== '200');
    expect(errors.length).toBeGreaterThanOrEqual(12);
    expect(new Set(errors.map((r) => r.serialize)).size).toBe(1);
    expect(new Set(byRoute.map((r) => r.serialize)).size).toBe(2);
    const envelope = { error: { code: 'INVALID_REQUEST', message: 'bad' } };
    expect(JSON.parse(errors[0]!.serialize(envelope))).toEqual(envelope);
    expect(byRoute.find((r) => r.status === '200')!.serialize({ receiptId: 'dice_1', secret: 'x' })).toBe('{"receiptId":"dice_1"}');
  });
});
