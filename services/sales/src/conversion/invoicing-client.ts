import { invoicing, sales, type RpcReply } from '@bo/contracts';
import { AppError, BusError, downstreamTimeoutMs, type HandlerContext } from '@bo/runtime';

export type SourceInvoice = sales.SourceInvoice;
export type SourceInvoiceRequest = sales.SourceInvoiceRequest;

/**
 * Asks invoicing for the draft invoice of this source. The operation is idempotent per
 * (sourcetype, sourceid): a repeat answers the invoice made the first time.
 */
export async function invoiceForSource(ctx: HandlerContext, request: SourceInvoiceRequest): Promise<SourceInvoice> {
  let reply: RpcReply;
  try {
    reply = await ctx.bus.request(
      invoicing.createInvoiceFromSource.name,
      request,
      { orgId: ctx.orgId, userId: ctx.userId, requestId: ctx.requestId, idempotencyKey: ctx.idempotencyKey },
      downstreamTimeoutMs(ctx.config),
    );
  } catch (err) {
    if (!(err instanceof BusError)) throw err;
    if (err.kind === 'timeout') {
      throw new AppError(504, 'timeout', 'The invoicing service did not answer in time; the quotation is unchanged and the conversion can be retried safely');
    }
    throw new AppError(503, 'service_unavailable', 'The invoicing service is unavailable; the quotation is unchanged, retry later');
  }
  if (!reply.ok) {
    if (reply.status >= 500) throw new AppError(reply.status === 504 ? 504 : 503, reply.status === 504 ? 'timeout' : 'service_unavailable', `Invoicing could not create the invoice: ${reply.message}`);
    throw new AppError(reply.status, reply.code, `Invoicing refused the invoice: ${reply.message}`, reply.errors);
  }
  const parsed = sales.sourceInvoiceAnswer.safeParse(reply.body);
  if (!parsed.success) throw new Error(`invoicing answered an unexpected body: ${parsed.error.message}`);
  return parsed.data.invoice;
}
