import { integrations } from '@bo/contracts';
import { handler, paginationOf, selectPage } from '@bo/runtime';
import { endpointRecord, type EndpointRow } from './endpoint.record';

export const listEndpointsHandler = handler(integrations.listEndpoints, async (req, ctx) => {
  const { rows, total } = await selectPage<EndpointRow>(
    ctx.db('endpoints').where({ org_id: ctx.orgId }).whereNull('deleted_at').select('*'),
    req,
    (page) => page.orderBy('id'),
  );
  const now = new Date();
  return {
    message: 'Webhook endpoints retrieved successfully',
    endpoints: rows.map((r) => endpointRecord(r, now)),
    pagination: paginationOf(req, total),
  };
});
