import { integrations } from '@bo/contracts';
import { formatDateTime } from '@bo/kernel';
import { handler, notFound, paginationOf, selectPage } from '@bo/runtime';
import { findEndpoint } from '../endpoint/endpoint.record';
import { deliveryRecord, type DeliveryRow } from './delivery.record';

interface AttemptRow {
  attempt: number;
  at: Date;
  http_status: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

/**
 * A delivery's attempts, newest first; a delivery of another endpoint or organization is not found.
 * One snapshot, so the delivery's `attempts` counts the attempts listed.
 */
export const listAttemptsHandler = handler(integrations.listAttempts, async (req, ctx) => {
  const endpoint = await findEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
  const { delivery, rows, total } = await ctx.db.transaction(
    async (trx) => {
      const delivery = (await trx('deliveries').where({ id: req.delivery_id, endpoint_id: endpoint.id, org_id: ctx.orgId }).first()) as
        DeliveryRow | undefined;
      if (!delivery) throw notFound('Webhook delivery', req.delivery_id);
      const query = trx('delivery_attempts').where({ delivery_id: delivery.id }).select('*');
      return { delivery, ...(await selectPage<AttemptRow>(query, req, (page) => page.orderBy('attempt', 'desc').orderBy('id', 'desc'))) };
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
