import { integrations } from '@bo/contracts';
import { formatDateTime } from '@bo/kernel';
import { handler, paginationOf } from '@bo/runtime';
import { findEndpoint } from '../endpoint/endpoint.repository';
import { deliveryRefusals } from './delivery-refusals';
import { deliveryRecord } from './delivery.record';
import { findDelivery, pageOfAttempts } from './delivery.repository';

/**
 * A delivery's attempts, newest first; a delivery of another endpoint or organization is not found.
 * One snapshot, so the delivery's `attempts` counts the attempts listed.
 */
export const listAttemptsHandler = handler(integrations.listAttempts, async (req, ctx) => {
  const endpoint = await findEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
  const { delivery, rows, total } = await ctx.db.transaction(
    async (trx) => {
      const delivery = await findDelivery(trx, ctx.orgId, endpoint.id, req.delivery_id);
      if (!delivery) throw deliveryRefusals.deliveryNotFound(req.delivery_id);
      return { delivery, ...(await pageOfAttempts(trx, delivery.id, req)) };
    },
    { isolationLevel: 'repeatable read', readOnly: true },
  );
  return {
    message: 'Webhook delivery attempts retrieved successfully',
    delivery: deliveryRecord(delivery),
    attempts: rows.map((r) => ({
      attempt: r.attempt,
      at: formatDateTime(r.at) as string,
      http_status: r.http_status,
      duration_ms: r.duration_ms,
      error: r.error,
      response_excerpt: r.response_excerpt,
    })),
    pagination: paginationOf(req, total),
  };
});
