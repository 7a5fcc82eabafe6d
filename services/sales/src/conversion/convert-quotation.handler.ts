import { sales, type RequestOf } from '@bo/contracts';
import { actor } from '../actor';
import { AppError, dec, formatDateTime, handler, invalidState, recordEvent, today, toNumber, type HandlerContext, type Knex } from '@bo/runtime';
import { checkConvert } from '../quotation/quotation-status';
import { enforce, findQuotation, linesOf, statusOf } from '../quotation/quotation.repository';
import type { LineRow, QuotationRow } from '../quotation/quotation.record';
import { invoiceForSource, type SourceInvoice, type SourceInvoiceRequest } from './invoicing-client';

/**
 * Converts once. The quotation row stays locked from the check to the commit, so parallel
 * conversions queue and only the first makes the call that creates the invoice; invoicing itself
 * makes at most one invoice per quotation, so a conversion whose first attempt timed out finds the
 * same invoice on retry. The status change and the event commit together, after invoicing answered.
 *
 * A convert of an already converted quotation is refused (400), except a retry carrying the same
 * Idempotency-Key as the conversion that succeeded: that retry answers the same invoice.
 */
export const convertQuotationHandler = handler(sales.convertQuotation, async (req, ctx) => {
  try {
    return await convert(req, ctx);
  } catch (err) {
    if (err instanceof AppError && err.code === 'timeout') await markConversionUnfinished(ctx.db, ctx.orgId, req.quotation_id);
    throw err;
  }
});

async function convert(req: RequestOf<typeof sales.convertQuotation>, ctx: HandlerContext) {
  return ctx.db.transaction(async (trx) => {
    const q = await findQuotation(trx, ctx.orgId, req.quotation_id, { lock: true });
    const status = statusOf(q, today());
    const lines = await linesOf(trx, q.id);
    if (status === 'converted' && ctx.idempotencyKey && q.convert_key === ctx.idempotencyKey) {
      const invoice = await invoiceForSource(ctx, sourceRequest(ctx.orgId, ctx.userId, q, lines, req.invoicetype));
      return { message: `Quotation ${q.quotation_number} was already converted to invoice ${invoice.invoicenumber}`, invoice: invoiceView(invoice) };
    }
    if (status === 'converted') throw invalidState(`Quotation ${q.quotation_number} is already converted to invoice ${q.invoicenumber}; a quotation converts once`);
    enforce(checkConvert(status), q);
    if (lines.length === 0) throw invalidState(`Quotation ${q.quotation_number} has no lines; add a line before converting it`);

    const invoice = await invoiceForSource(ctx, sourceRequest(ctx.orgId, ctx.userId, q, lines, req.invoicetype));
    const convertedAt = new Date();
    await trx('quotations')
      .where({ id: q.id })
      .update({
        status: 'converted',
        invoice_id: invoice.id,
        invoicenumber: invoice.invoicenumber,
        invoicetype: invoice.invoicetype,
        converted_at: convertedAt,
        convert_key: ctx.idempotencyKey ?? null,
        updated_by: actor(req, ctx),
        updated_at: trx.fn.now(),
      });
    await recordEvent(trx, sales.quotationConverted.type, ctx.orgId, {
      quotation_id: q.id,
      quotation_number: q.quotation_number,
      quotation_type: q.quotation_type,
      invoice_id: invoice.id,
      invoicenumber: invoice.invoicenumber,
      invoicetype: invoice.invoicetype,
      partner_id: q.partner_id,
      subtotal: toNumber(q.subtotal),
      tax_amount: toNumber(q.tax_amount),
      quotation_total: toNumber(q.total),
      converted_at: formatDateTime(convertedAt) as string,
    } satisfies sales.QuotationConvertedData);
    return { message: `Quotation ${q.quotation_number} converted to invoice ${invoice.invoicenumber}`, invoice: invoiceView(invoice) };
  });
}

/**
 * Invoicing may have made the invoice and only answered late. The attempt rolled back, so the mark
 * is written on its own, once the row lock is free; a later conversion finishes the job.
 */
async function markConversionUnfinished(db: Knex, orgId: number, quotationId: number): Promise<void> {
  await db('quotations')
    .where({ org_id: orgId, id: quotationId })
    .whereIn('status', ['draft', 'sent', 'accepted'])
    .update({ conversion_attempted_at: db.fn.now() });
}

const plain = (v: string) => dec(v).toFixed();

/** The draft invoice of the quotation: its partner, lines and totals, pointing back at it. */
export function sourceRequest(orgId: number, userId: string | undefined, q: QuotationRow, lines: LineRow[], invoicetype: SourceInvoiceRequest['invoicetype']): SourceInvoiceRequest {
  return {
    org_id: String(orgId),
    userid: userId,
    invoicetype,
    partner: q.partner_id,
    invoicedatetime: formatDateTime(new Date()) as string,
    invoicestatus: 'draft',
    comments: q.comments ?? undefined,
    invoicereference: q.quotation_reference || q.quotation_number,
    subtotal: dec(q.subtotal).toFixed(2),
    tax_amount: dec(q.tax_amount).toFixed(2),
    invoicetotal: dec(q.total).toFixed(2),
    sourcetype: 'quotation',
    sourceid: String(q.id),
    sourcenumber: q.quotation_number,
    line_items: lines.map((l) => ({
      product_id: l.product_id,
      product_name: l.product_name ?? undefined,
      description: l.description ?? undefined,
      quantity: plain(l.quantity),
      price: plain(l.price),
      discount: plain(l.discount),
      tax_rate: plain(l.tax_rate),
      tax_included: l.tax_included,
      subtotal: dec(l.subtotal).toFixed(2),
      tax_amount: dec(l.tax_amount).toFixed(2),
      total: dec(l.total).toFixed(2),
    })),
  };
}

function invoiceView(invoice: SourceInvoice) {
  return {
    id: invoice.id,
    orgid: invoice.orgid,
    invoicenumber: invoice.invoicenumber,
    invoicetype: invoice.invoicetype,
    partner: String(invoice.partner),
    invoicestatus: invoice.invoicestatus,
    subtotal: invoice.subtotal,
    tax_amount: invoice.tax_amount,
    invoicetotal: invoice.invoicetotal,
  };
}
