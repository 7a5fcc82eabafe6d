import { integrations } from '@bo/contracts';
import { handler, paginationOf } from '@bo/runtime';
import { findEndpoint } from '../endpoint/endpoint.repository';
import { deliveryRecord } from './delivery.record';
import { pageOfDeliveries } from './delivery.repository';

/** The endpoint's log, newest first; another organization's endpoint is not found. */
export const listDeliveriesHandler = handler(integrations.listDeliveries, async (req, ctx) => {
  const endpoint = await findEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
  const { rows, total } = await pageOfDeliveries(ctx.db, ctx.orgId, endpoint.id, req.status, req);
  return {
    message: 'Webhook deliveries retrieved successfully',
    deliveries: rows.map(deliveryRecord),
    pagination: paginationOf(req, total),
  };
});
