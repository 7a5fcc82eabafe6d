import { invoicing, partners, sales, type RpcReply } from '@bo/contracts';
import { AppError, BusError, downstreamTimeoutMs, type HandlerContext } from '@bo/runtime';

const ASKED = [
  { service: 'sales', operation: sales.partnerOpenQuotations },
  { service: 'invoicing', operation: invoicing.partnerOpenInvoices },
] as const;

/**
 * Asks sales and invoicing, at delete time, what still ties the partner to them; with `fenceMs`, each
 * that has nothing open also fences the partner against new documents for that long. Called with no
 * transaction open, so no lock is held while they answer. Either one unreachable: the delete is
 * refused as 503 (nothing was written), since deleting blind could orphan open documents.
 */
export async function askOpenDocuments(ctx: HandlerContext, partnerId: number, fenceMs?: number): Promise<partners.OpenDocumentsReply[]> {
  return Promise.all(
    ASKED.map(async ({ service, operation }) => {
      let reply: RpcReply;
      try {
        reply = await ctx.bus.request(
          operation.name,
          { org_id: ctx.orgId, partner_id: partnerId, ...(fenceMs === undefined ? {} : { fence_ms: fenceMs }) },
          { orgId: ctx.orgId, userId: ctx.userId, requestId: ctx.requestId },
          downstreamTimeoutMs(ctx.config),
        );
      } catch (err) {
        if (!(err instanceof BusError)) throw err;
        const timeout = err.kind === 'timeout';
        throw new AppError(
          timeout ? 504 : 503,
          timeout ? 'timeout' : 'service_unavailable',
          `The ${service} service could not say whether partner ${partnerId} has open documents (${err.message}); the partner was not deleted, retry later`,
        );
      }
      if (!reply.ok) {
        throw new AppError(
          503,
          'service_unavailable',
          `The ${service} service could not say whether partner ${partnerId} has open documents (${reply.message}); the partner was not deleted, retry later`,
        );
      }
      return operation.reply.parse(reply.body);
    }),
  );
}
