import { integrations } from '@bo/contracts';
import { handler, paginationOf } from '@bo/runtime';
import { endpointRecord } from './endpoint.record';
import { pageOfEndpoints } from './endpoint.repository';

export const listEndpointsHandler = handler(integrations.listEndpoints, async (req, ctx) => {
  const { rows, total } = await pageOfEndpoints(ctx.db, ctx.orgId, req);
  const now = new Date();
  return {
    message: 'Webhook endpoints retrieved successfully',
    endpoints: rows.map((r) => endpointRecord(r, now)),
    pagination: paginationOf(req, total),
  };
});
