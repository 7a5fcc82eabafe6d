import { integrations } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { deleteEndpoint, endpointDeleteAlone, lockEndpoint } from './endpoint.repository';

const MESSAGE = 'Webhook endpoint deleted successfully';

/**
 * Deleted with its deliveries and their log; an attempt in flight finds its row gone and records
 * nothing. It decides on nothing stored: one statement (`alone`), which must find the organization's
 * live endpoint, else the locked way answers not found (`apply`).
 */
export const deleteEndpointHandler = handler(integrations.deleteEndpoint, {
  alone: (req, ctx) => Promise.resolve({ ...endpointDeleteAlone(ctx.orgId, req.endpoint_id), events: [], reply: { message: MESSAGE } }),
  apply: async (req, ctx) => {
    const row = await lockEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
    await deleteEndpoint(ctx.db, row.id);
    return { message: MESSAGE };
  },
});
