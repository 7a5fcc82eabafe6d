import { integrations } from '@bo/contracts';
import { handler } from '@bo/runtime';
import { lockEndpoint } from '../endpoint/endpoint.repository';
import { deliveryRefusals } from './delivery-refusals';
import { requeueDelivery, requeueFailedSince } from './delivery.repository';
import { wakeAfterCommit } from './wake';

export const redeliverHandler = handler(integrations.redeliver, async (req, ctx) => {
  const endpoint = await lockEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
  let count: number;
  if (req.delivery_id !== undefined) {
    count = await requeueDelivery(ctx.db, endpoint.id, req.delivery_id);
    if (count === 0) throw deliveryRefusals.deliveryNotFound(req.delivery_id);
  } else if (req.since !== undefined) {
    count = await requeueFailedSince(ctx.db, endpoint.id, new Date(`${req.since}Z`));
  } else {
    throw deliveryRefusals.deliveryIdOrSinceRequired();
  }
  if (count > 0) wakeAfterCommit(ctx.db);
  return { message: `${count} webhook deliveries queued again`, redelivered: count };
});
