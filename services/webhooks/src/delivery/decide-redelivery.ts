import type { RequestOf, integrations } from '@bo/contracts';
import { deliveryRefusals } from './delivery-refusals';

/** What a redeliver queues again: one delivery of the endpoint, or every one not delivered that was made since a time. */
export type Redelivery = { deliveryId: number } | { since: Date };

/**
 * The deliveries a redeliver names, decided from the request alone: `delivery_id` (whatever its
 * status) before `since` (UTC, to the second); neither is refused.
 */
export function decideRedelivery(req: Pick<RequestOf<typeof integrations.redeliver>, 'delivery_id' | 'since'>): Redelivery {
  if (req.delivery_id !== undefined) return { deliveryId: req.delivery_id };
  if (req.since !== undefined) return { since: new Date(`${req.since}Z`) };
  throw deliveryRefusals.deliveryIdOrSinceRequired();
}

/** What the answer says after the count of deliveries queued again. */
export const QUEUED_AGAIN = ' webhook deliveries queued again';

/** The answer once `count` deliveries were queued again; one delivery named and not found (none queued) is refused. */
export function redelivered(which: Redelivery, count: number) {
  if ('deliveryId' in which && count === 0) throw deliveryRefusals.deliveryNotFound(which.deliveryId);
  return { message: `${count}${QUEUED_AGAIN}`, redelivered: count };
}
