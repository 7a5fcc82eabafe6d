import { integrations } from '@bo/contracts';
import { handler, paginationOf, selectPage } from '@bo/runtime';
import { findEndpoint } from '../endpoint/endpoint.record';
import { deliveryRecord, type DeliveryRow } from './delivery.record';

/** The endpoint's log, newest first; another organization's endpoint is not found. */
export const listDeliveriesHandler = handler(integrations.listDeliveries, async (req, ctx) => {
  const endpoint = await findEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
  const query = ctx.db('deliveries').where({ endpoint_id: endpoint.id, org_id: ctx.orgId }).select('*');
  if (req.status) query.where({ status: req.status });
  const { rows, total } = await selectPage<DeliveryRow>(query, req, (page) => page.orderBy('id', 'desc'));
  return {
    message: 'Webhook deliveries retrieved successfully',
    deliveries: rows.map(deliveryRecord),
    pagination: paginationOf(req, total),
  };
});
