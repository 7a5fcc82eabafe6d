import { z } from 'zod';
import { defineEvent } from '../events';

// Sent on the bus like every event (and so to webhooks too): fields may be added, never renamed.
export const endpointDisabled = defineEvent({
  type: 'webhooks.endpoint.disabled',
  summary: 'A webhook endpoint was disabled: its receiver answered 410 Gone, or no delivery to it succeeded for 3 days',
  data: z.object({
    endpoint_id: z.number().int(),
    url: z.string(),
    reason: z.enum(['gone', 'failing']),
    failing_since: z.string().nullable(),
    disabled_at: z.string(),
    version: z.number().int(),
  }),
});

export const integrationsEvents = [endpointDisabled];

/**
 * Sent to one endpoint by `test`, never published on the bus: a receiver can check its URL and its
 * signature check with it. Every endpoint gets it, whatever its `events`.
 */
export const webhookPing = {
  type: 'webhook.ping',
  summary: 'A test webhook sent by the `test` action',
  data: z.object({ endpoint_id: z.number().int(), message: z.string() }),
} as const;
