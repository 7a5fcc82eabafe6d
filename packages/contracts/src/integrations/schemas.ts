import { z } from 'zod';
import {
  atMost,
  baseRequest,
  CONTROLS,
  dateTimeField,
  intId,
  NONCHARACTERS,
  notBlank,
  optionalText,
  pageRequest,
  paginationSchema,
  plainString,
  WHITE_SPACE,
} from '../fields';
import { rule } from '../json-schema';

/**
 * A URL a webhook may be sent to, as its shape: http(s), a host name (its last label starting with a
 * letter), an IPv4 or a bracketed IPv6 address, an optional port, a path and query; no user info, no
 * fragment. The scheme allowed and the addresses the host reaches are the service's rules.
 */
export const webhookUrlPattern = new RegExp(
  // The path refuses white space and what every text field refuses (fields.ts).
  `^https?:\\/\\/(?:(?:[A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*|(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])(?:\\.(?:25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])){3}|\\[(?:(?:[0-9A-Fa-f]{1,4}:){7}[0-9A-Fa-f]{1,4}|(?:[0-9A-Fa-f]{1,4}:){1,7}:|(?:[0-9A-Fa-f]{1,4}:){1,6}:[0-9A-Fa-f]{1,4}|(?:[0-9A-Fa-f]{1,4}:){1,5}(?::[0-9A-Fa-f]{1,4}){1,2}|(?:[0-9A-Fa-f]{1,4}:){1,4}(?::[0-9A-Fa-f]{1,4}){1,3}|(?:[0-9A-Fa-f]{1,4}:){1,3}(?::[0-9A-Fa-f]{1,4}){1,4}|(?:[0-9A-Fa-f]{1,4}:){1,2}(?::[0-9A-Fa-f]{1,4}){1,5}|[0-9A-Fa-f]{1,4}:(?::[0-9A-Fa-f]{1,4}){1,6}|:(?:(?::[0-9A-Fa-f]{1,4}){1,7}|:))\\])(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9][0-9]|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?(?:[/?][^#${WHITE_SPACE}${CONTROLS}${NONCHARACTERS}]*)?$`,
);

/** Why a text is not a URL a webhook may be sent to, or undefined when it is one (the scheme and the target are the service's checks). */
export function webhookUrlProblem(value: string): string | undefined {
  if (!webhookUrlPattern.test(value)) return 'must be an absolute http(s) URL (https://host/path), without user info or fragment';
  try {
    new URL(value);
  } catch {
    return 'must be an absolute http(s) URL (https://host/path), without user info or fragment';
  }
  return undefined;
}

const urlField = plainString()
  .check(
    atMost(2000),
    rule<string>((v) => webhookUrlProblem(v), { patterns: [webhookUrlPattern] }),
  )
  .describe(
    'Where the webhooks are POSTed: an https URL (http only where WEBHOOKS_ALLOW_HTTP=1) whose host resolves to a public address; no user info, no fragment',
  );

/** An event name, `*` (every event), or a prefix pattern such as `invoicing.*` or `invoicing.invoice.*`. */
const eventPattern = plainString()
  .trim()
  .check(notBlank(), atMost(100))
  .describe('An event type of the AsyncAPI document (invoicing.invoice.validated), `*` for every event, or a prefix pattern (invoicing.*)');

const eventsField = z
  .array(eventPattern)
  .min(1, 'must name at least one event or pattern')
  .max(50, 'must have at most 50 items')
  .describe('The events the endpoint receives: event types, `*` or prefix patterns such as `invoicing.*`');

export const endpointStatuses = ['enabled', 'disabled'] as const;

/** An endpoint as the API shows it: never its secret. */
export const endpointRecord = z.object({
  id: z.number().int(),
  url: z.string(),
  description: z.string().nullable(),
  events: z.array(z.string()),
  status: z.enum(endpointStatuses),
  /** Why it was disabled: `gone` (the receiver answered 410), `failing` (3 days without a success), `manual`. */
  disabled_reason: z.string().nullable(),
  disabled_at: z.string().nullable(),
  /** Until when the secret before the last rotation still signs too (null: no overlap running). */
  previous_secret_expires_at: z.string().nullable(),
  version: z.number().int(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type EndpointRecord = z.infer<typeof endpointRecord>;

export const deliveryStatuses = ['pending', 'delivered', 'failed'] as const;

/** One event to one endpoint, with the outcome of its last attempt. */
export const deliveryRecord = z.object({
  id: z.number().int(),
  endpoint_id: z.number().int(),
  /** The event's id: the `webhook-id` header and the payload's `id`, the same on every attempt. */
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(deliveryStatuses),
  attempts: z.number().int(),
  last_attempt_at: z.string().nullable(),
  last_http_status: z.number().int().nullable(),
  last_duration_ms: z.number().int().nullable(),
  last_error: z.string().nullable(),
  next_attempt_at: z.string().nullable(),
  delivered_at: z.string().nullable(),
  created_at: z.string(),
});
export type DeliveryRecord = z.infer<typeof deliveryRecord>;

/** One attempt of a delivery, as the dispatcher recorded it when it ended. */
export const attemptRecord = z.object({
  /** 1 for the first attempt, counting on across redeliveries. */
  attempt: z.number().int(),
  /** When it was made (UTC). */
  at: z.string(),
  /** The receiver's HTTP status; null when none came (refused, unreachable, timed out). */
  http_status: z.number().int().nullable(),
  duration_ms: z.number().int(),
  /** Why it failed without an answer (refused, unreachable, no answer in time); null when the receiver answered. */
  error: z.string().nullable(),
  /** The first kilobyte of the receiver's answer, as text. */
  response_excerpt: z.string().nullable(),
});
export type AttemptRecord = z.infer<typeof attemptRecord>;

// The shared id field as it is: a `.describe()` copy would lose the range its JSON schema documents.
const endpointId = intId;

export const createEndpointRequest = z.object({
  ...baseRequest,
  action: z.literal('create'),
  url: urlField,
  events: eventsField,
  description: optionalText(500),
});

export const listEndpointsRequest = z.object({
  ...baseRequest,
  action: z.literal('list'),
  ...pageRequest,
});

export const updateEndpointRequest = z.object({
  ...baseRequest,
  action: z.literal('update'),
  endpoint_id: endpointId,
  url: urlField.optional(),
  events: eventsField.optional(),
  description: z.union([plainString().check(atMost(500)), z.null()]).optional(),
  /** `enabled` turns a disabled endpoint on again (its pending deliveries resume); `disabled` pauses it. */
  status: z.enum(endpointStatuses).optional(),
});

export const endpointRequest = <A extends string>(action: A) =>
  z.object({
    ...baseRequest,
    action: z.literal(action),
    endpoint_id: endpointId,
  });

export const listDeliveriesRequest = z.object({
  ...baseRequest,
  action: z.literal('deliveries'),
  endpoint_id: endpointId,
  status: z.enum(deliveryStatuses).optional(),
  ...pageRequest,
});

export const listAttemptsRequest = z.object({
  ...baseRequest,
  action: z.literal('attempts'),
  endpoint_id: endpointId,
  delivery_id: intId,
  ...pageRequest,
});

export const redeliverRequest = z.object({
  ...baseRequest,
  action: z.literal('redeliver'),
  endpoint_id: endpointId,
  /** One delivery to send again (whatever its status); or, without it, `since`. */
  delivery_id: intId.optional(),
  /** Every delivery of the endpoint not delivered (failed, or pending after a failed attempt) made since then (UTC). */
  since: dateTimeField.optional(),
});

export const endpointReply = z.object({ message: z.string(), endpoint: endpointRecord });
export const endpointWithSecretReply = z.object({
  message: z.string(),
  endpoint: endpointRecord,
  /** The signing secret (`whsec_` + base64): answered here once, never again. */
  secret: z.string(),
});
export const listEndpointsReply = z.object({ message: z.string(), endpoints: z.array(endpointRecord), pagination: paginationSchema });
export const deliveryReply = z.object({ message: z.string(), delivery: deliveryRecord });
export const listDeliveriesReply = z.object({ message: z.string(), deliveries: z.array(deliveryRecord), pagination: paginationSchema });
export const listAttemptsReply = z.object({
  message: z.string(),
  delivery: deliveryRecord,
  attempts: z.array(attemptRecord),
  pagination: paginationSchema,
});
export const redeliverReply = z.object({ message: z.string(), redelivered: z.number().int() });
export const messageReply = z.object({ message: z.string() });

/** The body of every webhook POST: the event as the system published it, `occurred_at` named `created_at`. */
export const webhookPayload = z.object({
  id: z.string(),
  type: z.string(),
  created_at: z.string(),
  org_id: z.number().int(),
  data: z.record(z.string(), z.unknown()),
});
export type WebhookPayload = z.infer<typeof webhookPayload>;
