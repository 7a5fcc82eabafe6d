import { invoicing } from '@bo/contracts';
import { handler, recordEvent, statementEvent, unlessRefused } from '@bo/runtime';
import { decideRejection } from './decide-rejection';
import { inboundById, markRejected, readInboundAsRead, rejectionAlone } from './inbound.repository';

/**
 * Closes an import held for review without a bill. It keeps its original and its report; it gives up
 * its supplier key, so the supplier may send a corrected document under the same number.
 *
 * Load → decide (decideRejection) → store, optimistic as a rule: the import read with no lock, and
 * the reject with its event as one statement, only while the import is the row read (`alone`). An
 * accept or another reject that changed it meanwhile, or a refusal, is judged again under the
 * import's lock (`apply`), where a refusal is recorded.
 */
export const rejectInboundHandler = handler(invoicing.rejectInbound, {
  alone: async (req, ctx) => {
    const loaded = await readInboundAsRead(ctx.db, ctx.orgId, req.id);
    const rejection = loaded && unlessRefused(() => decideRejection(loaded.row, req));
    if (!loaded || !rejection) return undefined;
    return {
      ...rejectionAlone(rejection.inbound, loaded.read),
      events: [statementEvent(invoicing.inboundRejected, ctx.orgId, rejection.event)],
      reply: rejection.reply,
    };
  },
  apply: async (req, ctx) => {
    const rejection = decideRejection(await inboundById(ctx.db, ctx.orgId, req.id, { lock: true }), req);
    await markRejected(ctx.db, rejection.inbound.id, req.reason);
    await recordEvent(ctx.db, invoicing.inboundRejected, ctx.orgId, rejection.event);
    return rejection.reply;
  },
});
