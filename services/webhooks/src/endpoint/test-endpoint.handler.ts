import { randomUUID } from 'node:crypto';
import { integrations } from '@bo/contracts';
import { currentTraceContext, filledIn, handler } from '@bo/runtime';
import { deliveryRecord } from '../delivery/delivery.record';
import { insertDelivery, queuedAlone } from '../delivery/delivery.repository';
import { wakeAfterCommit } from '../delivery/wake';
import { decidePing, queuedAsStored, queuedPing } from './decide-ping';
import { lockEndpoint } from './endpoint.repository';

const MESSAGE = 'Test webhook queued';

/**
 * A `webhook.ping` queued like any delivery (whatever the endpoint's events), sent at once by the
 * dispatcher. Decide → store: the ping is decided from the request alone (queuedPing), and queued as
 * one statement that must find the organization's live endpoint enabled (`alone`); else the locked
 * way answers (`apply`: not found, or disabled). Either way the dispatchers wake once it is stored.
 */
export const testEndpointHandler = handler(integrations.testEndpoint, {
  alone: (req, ctx) => {
    const ping = queuedPing({ id: req.endpoint_id, org_id: ctx.orgId }, randomUUID(), new Date(), currentTraceContext());
    // The delivery's id and creation time are the statement's: filled in from it.
    const delivery = { ...deliveryRecord(queuedAsStored(ping, 0, new Date())), id: filledIn<number>(), created_at: filledIn<string>() };
    return { ...queuedAlone(ping), events: [], reply: { message: MESSAGE, delivery } };
  },
  apply: async (req, ctx) => {
    const endpoint = await lockEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
    const row = await insertDelivery(ctx.db, decidePing(endpoint, randomUUID(), new Date(), currentTraceContext()));
    wakeAfterCommit(ctx.db);
    return { message: MESSAGE, delivery: deliveryRecord(row) };
  },
});
