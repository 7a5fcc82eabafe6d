import { randomUUID } from 'node:crypto';
import { integrations } from '@bo/contracts';
import { formatDateTime } from '@bo/kernel';
import { currentTraceContext, handler, invalidState } from '@bo/runtime';
import { deliveryRecord, type DeliveryRow } from '../delivery/delivery.record';
import { wakeAfterCommit } from '../delivery/wake';
import { lockEndpoint } from './endpoint.record';

/** A `webhook.ping` queued like any delivery (whatever the endpoint's events), sent at once by the dispatcher. */
export const testEndpointHandler = handler(integrations.testEndpoint, async (req, ctx) => {
  const endpoint = await lockEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
  if (endpoint.status !== 'enabled')
    throw invalidState(`Webhook endpoint ${endpoint.id} is disabled; enable it (update with status "enabled") first`);
  const id = randomUUID();
  const now = new Date();
  const trace = currentTraceContext();
  const [row] = (await ctx
    .db('deliveries')
    .insert({
      org_id: ctx.orgId,
      endpoint_id: endpoint.id,
      event_id: id,
      event_type: integrations.webhookPing.type,
      payload: JSON.stringify({
        id,
        type: integrations.webhookPing.type,
        created_at: formatDateTime(now),
        org_id: ctx.orgId,
        data: { endpoint_id: endpoint.id, message: 'A test webhook from the back office' },
      }),
      next_attempt_at: now,
      traceparent: trace?.traceparent ?? null,
      tracestate: trace?.tracestate ?? null,
    })
    .returning('*')) as DeliveryRow[];
  wakeAfterCommit(ctx.db);
  return { message: 'Test webhook queued', delivery: deliveryRecord(row as DeliveryRow) };
});
