import { invoicing, partners, sales } from '@bo/contracts';
import { AppError, CallError, type HandlerContext } from '@bo/runtime';

const ASKED = [sales.partnerOpenQuotations, invoicing.partnerOpenInvoices] as const;

/**
 * Asks sales and invoicing, at delete time, what still ties the partner to them; with `fenceMs`, each
 * that has nothing open also fences the partner against new documents for that long. Called with no
 * transaction open, so no lock is held while they answer. Either one unreachable, or refusing: the
 * delete is refused as 503 or 504 (nothing was written), since deleting blind could orphan open documents.
 */
export async function askOpenDocuments(
  ctx: Pick<HandlerContext, 'call'>,
  partnerId: number,
  fenceMs?: number,
): Promise<partners.OpenDocumentsReply[]> {
  return Promise.all(
    ASKED.map(async (operation) => {
      try {
        return await ctx.call(
          operation,
          { partner_id: partnerId, ...(fenceMs === undefined ? {} : { fence_ms: fenceMs }) },
          { what: `the open documents of partner ${partnerId}` },
        );
      } catch (err) {
        if (!(err instanceof CallError)) throw err;
        const message = `The ${operation.service} service could not say whether partner ${partnerId} has open documents (${err.detail}); the partner was not deleted, retry later`;
        // A refusal is no answer either: nothing may be deleted on it.
        if (err.failure === 'refused') throw new AppError(503, 'service_unavailable', message);
        throw new AppError(err.status, err.code, message);
      }
    }),
  );
}
