import { integrations } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { deleteEndpoint, lockEndpoint } from './endpoint.repository';

/** Deleted with its deliveries and their log; an attempt in flight finds its row gone and records nothing. */
export const deleteEndpointHandler = handler(integrations.deleteEndpoint, async (req, ctx) => {
  const row = await lockEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
  await deleteEndpoint(ctx.db, row.id);
  return { message: 'Webhook endpoint deleted successfully' };
});
