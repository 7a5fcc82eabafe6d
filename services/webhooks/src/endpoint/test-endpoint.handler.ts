import { randomUUID } from 'node:crypto';
import { integrations } from '@bo/contracts';
import { formatDateTime } from '@bo/kernel';
import { currentTraceContext, handler } from '@bo/runtime';
import { deliveryRecord } from '../delivery/delivery.record';
import { insertDelivery } from '../delivery/delivery.repository';
import { wakeAfterCommit } from '../delivery/wake';
import { endpointRefusals } from './endpoint-refusals';
import { lockEndpoint } from './endpoint.repository';

/** A `webhook.ping` queued like any delivery (whatever the endpoint's events), sent at once by the dispatcher. */
export const testEndpointHandler = handler(integrations.testEndpoint, async (req, ctx) => {
  const endpoint = await lockEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
  if (endpoint.status !== 'enabled') throw endpointRefusals.endpointDisabled(endpoint.id);
  const id = randomUUID();
  const now = new Date();
  const trace = currentTraceContext();
  const row = await insertDelivery(ctx.db, {
    org_id: ctx.orgId,
    endpoint_id: endpoint.id,
    event_id: id,
    event_type: integrations.webhookPing.type,
    payload: {
      id,
      type: integrations.webhookPing.type,
      created_at: formatDateTime(now) as string,
      org_id: ctx.orgId,
      data: { endpoint_id: endpoint.id, message: 'A test webhook from the back office' },
    },
    next_attempt_at: now,
    traceparent: trace?.traceparent ?? null,
    tracestate: trace?.tracestate ?? null,
  });
  wakeAfterCommit(ctx.db);
  return { message: 'Test webhook queued', delivery: deliveryRecord(row) };
});
