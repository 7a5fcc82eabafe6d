import { integrations } from '@bo/contracts';
import { filledIn, handler, unlessRefused } from '@bo/runtime';
import { lockEndpoint } from '../endpoint/endpoint.repository';
import { decideRedelivery, redelivered } from './decide-redelivery';
import { redeliveryAlone, requeue } from './delivery.repository';
import { wakeAfterCommit } from './wake';

/**
 * Queues one delivery of the endpoint again, or every one not delivered since a time, with a fresh
 * retry schedule and the same webhook-id. Decide → store: which deliveries is decided from the request
 * alone (decideRedelivery), and they are queued again as one statement, which locks the endpoint
 * before them and must find it, and the one delivery named (`alone`); else, or for a request naming
 * neither, the locked way answers (`apply`). Either way the dispatchers wake once it is stored.
 */
export const redeliverHandler = handler(integrations.redeliver, {
  alone: (req, ctx) => {
    const which = unlessRefused(() => decideRedelivery(req));
    if (!which) return undefined;
    // How many were queued again is the statement's: filled in from it, with the message telling it.
    return {
      ...redeliveryAlone(ctx.orgId, req.endpoint_id, which),
      events: [],
      reply: { message: filledIn<string>(), redelivered: filledIn<number>() },
    };
  },
  apply: async (req, ctx) => {
    const endpoint = await lockEndpoint(ctx.db, ctx.orgId, req.endpoint_id);
    const which = decideRedelivery(req);
    const reply = redelivered(which, await requeue(ctx.db, endpoint.id, which));
    if (reply.redelivered > 0) wakeAfterCommit(ctx.db);
    return reply;
  },
});
