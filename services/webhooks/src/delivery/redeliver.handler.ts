import { integrations } from '@bo/contracts';
import { handler, notFound, validationFailed } from '@bo/runtime';
import { lockEndpoint } from '../endpoint/endpoint.record';
import { wakeAfterCommit } from './wake';

/** Due now with a fresh retry schedule, and the same webhook-id as before; an attempt in flight loses its lease. */
const again = { status: 'pending', failed_in_a_row: 0, leased_until: null, lease_id: null };

export const redeliverHandler = handler(integrations.redeliver, async (req, ctx) => {
  const endpoint = await lockEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
  let count: number;
  if (req.delivery_id !== undefined) {
    count = await ctx
      .db('deliveries')
      .where({ id: req.delivery_id, endpoint_id: endpoint.id })
      .update({ ...again, next_attempt_at: ctx.db.fn.now() });
    if (count === 0) throw notFound('Webhook delivery', req.delivery_id);
  } else if (req.since !== undefined) {
    count = await ctx
      .db('deliveries')
      .where({ endpoint_id: endpoint.id })
      .where('created_at', '>=', new Date(`${req.since}Z`))
      .whereRaw(`(status = 'failed' or (status = 'pending' and failed_in_a_row > 0))`)
      .update({ ...again, next_attempt_at: ctx.db.fn.now() });
  } else {
    throw validationFailed('Give delivery_id (one delivery) or since (every failed one since then)', [
      { field: 'delivery_id', message: 'delivery_id or since is required' },
    ]);
  }
  if (count > 0) wakeAfterCommit(ctx.db);
  return { message: `${count} webhook deliveries queued again`, redelivered: count };
});
