import type { RpcReply } from '@bo/contracts';
import { caller, AppError, BusError } from '@bo/runtime';
import { resolveCatalogLines } from './catalog-lines';

/** Calls over a bus whose request answers as catalog would (or fails as the bus would). */
function ctxAnswering(reply: RpcReply | BusError) {
  const request = jest.fn(() => (reply instanceof BusError ? Promise.reject(reply) : Promise.resolve(reply)));
  const ctx = { call: caller({ request }, { RPC_TIMEOUT_MS: 5000 }, { orgId: 1, userId: '5', requestId: 'r1' }) };
  return { ctx, request };
}

const line = { product_id: '7', product_name: undefined, description: undefined, price: '10' };
const fieldOf = (i: number, field: string) => `line_items.${i}.${field}`;

async function refusal(reply: RpcReply | BusError): Promise<AppError> {
  const { ctx } = ctxAnswering(reply);
  const err: unknown = await resolveCatalogLines(ctx, [line], fieldOf).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  return err as AppError;
}

describe('resolveCatalogLines when catalog refuses the lookup', () => {
  it("answers catalog's 400 as a 400 with its errors, recorded like any refusal", async () => {
    const errors = [{ field: 'location_ids.0', message: 'location_ids.0: must be an id' }];
    const err = await refusal({ ok: false, status: 400, code: 'validation_failed', message: 'Invalid request', errors });
    expect({ status: err.status, code: err.code, errors: err.errors, transient: err.transient }).toEqual({
      status: 400,
      code: 'validation_failed',
      errors,
      transient: false,
    });
    expect(err.message).toContain('Invalid request');
    expect(err).toMatchObject({ refusal: 'catalogLines.catalogRefusedLines' });
  });

  it('answers any other refusal as a transient 503: nothing was written and a retry may succeed', async () => {
    for (const status of [401, 404, 500, 503]) {
      const err = await refusal({ ok: false, status, code: 'service_unavailable', message: 'refused' });
      expect({ status: err.status, code: err.code, transient: err.transient }).toEqual({
        status: 503,
        code: 'service_unavailable',
        transient: true,
      });
    }
  });

  it('answers a catalog that cannot be asked, even one that timed out, as a transient 503: the lookup writes nothing', async () => {
    for (const kind of ['timeout', 'unroutable', 'lost'] as const) {
      const err = await refusal(new BusError(kind, 'no answer'));
      expect({ status: err.status, code: err.code, transient: err.transient }).toEqual({
        status: 503,
        code: 'service_unavailable',
        transient: true,
      });
    }
  });
});
