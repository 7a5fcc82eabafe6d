import type { integrations } from '@bo/contracts';
import { formatDateTime } from '@bo/kernel';

export interface DeliveryRow {
  id: number;
  org_id: number;
  endpoint_id: number;
  event_id: string;
  event_type: string;
  payload: integrations.WebhookPayload;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  failed_in_a_row: number;
  next_attempt_at: Date | null;
  leased_until: Date | null;
  lease_id: string | null;
  last_attempt_at: Date | null;
  last_http_status: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  traceparent: string | null;
  tracestate: string | null;
  created_at: Date;
}

/** The columns a delivery is queued with; the database makes the rest (id, created_at, defaults). */
export type QueuedDelivery = Pick<
  DeliveryRow,
  'org_id' | 'endpoint_id' | 'event_id' | 'event_type' | 'payload' | 'next_attempt_at' | 'traceparent' | 'tracestate'
>;

export function deliveryRecord(row: DeliveryRow): integrations.DeliveryRecord {
  return {
    id: row.id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: row.attempts,
    last_attempt_at: formatDateTime(row.last_attempt_at),
    last_http_status: row.last_http_status,
    last_duration_ms: row.last_duration_ms,
    last_error: row.last_error,
    // While an attempt runs its lease end stands there: the next attempt is not known before it ends.
    next_attempt_at: row.status === 'pending' && !row.lease_id ? formatDateTime(row.next_attempt_at) : null,
    delivered_at: formatDateTime(row.delivered_at),
    created_at: formatDateTime(row.created_at) as string,
  };
}
