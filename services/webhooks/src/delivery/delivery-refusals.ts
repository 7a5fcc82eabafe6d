import { defineRefusals } from '@bo/runtime';

/** Every refusal of the delivery module, by name (an endpoint not found is the endpoint module's). */
export const deliveryRefusals = defineRefusals('delivery', {
  /** No delivery by that id to the endpoint named (one of another endpoint or organization is not found either). */
  deliveryNotFound: (deliveryId: number) => ({ code: 'not_found', message: `Webhook delivery ${deliveryId} not found` }),
  /** A redeliver naming neither one delivery nor a time since which every failed one goes again. */
  deliveryIdOrSinceRequired: () => ({
    code: 'validation_failed',
    message: 'Give delivery_id (one delivery) or since (every failed one since then)',
    errors: [{ field: 'delivery_id', message: 'delivery_id or since is required' }],
  }),
});
