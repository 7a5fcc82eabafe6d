import { integrations } from '@bo/contracts';
import { formatDateTime } from '@bo/kernel';
import type { TraceContext } from '@bo/runtime';
import type { DeliveryRow, QueuedDelivery } from '../delivery/delivery.record';
import { endpointRefusals } from './endpoint-refusals';
import type { EndpointRow } from './endpoint.record';

/**
 * A `webhook.ping` to the endpoint, queued like any delivery (whatever the endpoint's events): its
 * own event id `id`, due `now`, continuing the request's trace. Only an enabled endpoint is asked for
 * one (decidePing).
 */
export function queuedPing(
  endpoint: Pick<EndpointRow, 'id' | 'org_id'>,
  id: string,
  now: Date,
  trace: TraceContext | undefined,
): QueuedDelivery {
  const type = integrations.webhookPing.type;
  return {
    org_id: endpoint.org_id,
    endpoint_id: endpoint.id,
    event_id: id,
    event_type: type,
    payload: {
      id,
      type,
      created_at: formatDateTime(now) as string,
      org_id: endpoint.org_id,
      data: { endpoint_id: endpoint.id, message: 'A test webhook from the back office' },
    },
    next_attempt_at: now,
    traceparent: trace?.traceparent ?? null,
    tracestate: trace?.tracestate ?? null,
  };
}

/** A test webhook asked of the endpoint as it is: a ping queued (queuedPing), refused while the endpoint is disabled. */
export function decidePing(
  endpoint: Pick<EndpointRow, 'id' | 'org_id' | 'status'>,
  id: string,
  now: Date,
  trace: TraceContext | undefined,
): QueuedDelivery {
  if (endpoint.status !== 'enabled') throw endpointRefusals.endpointDisabled(endpoint.id);
  return queuedPing(endpoint, id, now, trace);
}

/** The delivery as its insert stores it, given what the database makes (its `id`, the time `at` it was made): pending, never tried. */
export function queuedAsStored(row: QueuedDelivery, id: number, at: Date): DeliveryRow {
  return {
    ...row,
    id,
    status: 'pending',
    attempts: 0,
    failed_in_a_row: 0,
    leased_until: null,
    lease_id: null,
    last_attempt_at: null,
    last_http_status: null,
    last_duration_ms: null,
    last_error: null,
    delivered_at: null,
    created_at: at,
  };
}
